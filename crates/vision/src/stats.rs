//! Small statistics over measurements the passes collect.

/// The middle of some values (sorting them; the upper middle of an even count), 0 for none.
pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}
