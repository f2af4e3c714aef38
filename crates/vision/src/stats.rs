//! Small statistics over measurements the passes collect.

/// The middle of some values (the upper middle of an even count), 0 for none. Reorders them:
/// the middle is selected, not the whole slice sorted (a piece's pixels run to thousands).
pub(crate) fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let middle = values.len() / 2;
    *values.select_nth_unstable_by(middle, f64::total_cmp).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_middle_of_the_values_sorted_the_upper_one_of_an_even_count() {
        assert_eq!(median(&mut []), 0.0);
        assert_eq!(median(&mut [3.0]), 3.0);
        assert_eq!(median(&mut [5.0, 1.0, 4.0, 2.0, 3.0]), 3.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 3.0);
        // Repeated values and negatives, in any order.
        let mut values: Vec<f64> = (0..101).map(|i| f64::from((i * 37) % 11) - 5.0).collect();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(median(&mut values), sorted[50]);
    }
}
