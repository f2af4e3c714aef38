//! The printable calibration target: the chessboard as an SVG at true scale (millimetre units).

use std::fmt::Write;

use crate::calibration::Chessboard;

/// Page width and height in mm (A4 landscape), enough for a 9x6 board of 25 mm squares.
const PAGE_MM: (f64, f64) = (297.0, 210.0);

/// An SVG of `board` at 100% scale: print without "fit to page" and check the 100 mm bar.
///
/// Squares at x, y in [0, 1] squares and [-1, 0] are black: that is the table frame's convention
/// (origin at the first inner corner, x along the longer row, y along the shorter, z up out of
/// the page), so the board reads the same way however it is turned on the table.
pub fn chessboard_svg(board: &Chessboard) -> String {
    let s = board.square_mm;
    let squares_x = board.cols + 1;
    let squares_y = board.rows + 1;
    let (page_w, page_h) = PAGE_MM;
    let board_w = f64::from(squares_x) * s;
    let board_h = f64::from(squares_y) * s;
    let left = ((page_w - board_w) / 2.0).max(10.0);
    let top = ((page_h - board_h) / 2.0).max(10.0);
    // Page y grows downwards; board y grows up the page, so z points out of the paper.
    let page_x = |x_mm: f64| left + s + x_mm;
    let page_y = |y_mm: f64| top + board_h - s - y_mm;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{page_w}mm" height="{page_h}mm" viewBox="0 0 {page_w} {page_h}">"#
    );
    let _ = writeln!(
        svg,
        "<!-- koanscope calibration target: {}x{} inner corners, {s} mm squares. Print at 100% scale. -->",
        board.cols, board.rows
    );
    let _ = writeln!(
        svg,
        r#"<rect width="{page_w}" height="{page_h}" fill="white"/>"#
    );
    for b in -1..board.rows {
        for a in -1..board.cols {
            if (a + b).rem_euclid(2) == 0 {
                let x = page_x(f64::from(a) * s);
                let y = page_y(f64::from(b + 1) * s);
                let _ = writeln!(
                    svg,
                    r#"<rect x="{x}" y="{y}" width="{s}" height="{s}" fill="black"/>"#
                );
            }
        }
    }
    let text_y = top + board_h + 7.0;
    let _ = writeln!(
        svg,
        r#"<line x1="{left}" y1="{text_y}" x2="{}" y2="{text_y}" stroke="black" stroke-width="0.5"/>"#,
        left + 100.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="{left}" y="{}" font-family="sans-serif" font-size="3.5">this bar must measure 100 mm · squares {s} mm · origin: the bottom-left inner corner (both corner squares at the left end are black); x to the right, y up the page, z out of the paper</text>"#,
        text_y + 5.0
    );
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_board_has_35_black_squares_and_states_its_scale() {
        let svg = chessboard_svg(&Chessboard::STANDARD);
        assert_eq!(svg.matches(r#"fill="black""#).count(), 35);
        assert!(svg.contains(r#"width="297mm""#));
        assert!(svg.contains("100 mm"));
    }

    #[test]
    fn shipped_target_matches_the_generator() {
        let shipped = include_str!("../../../calibration/chessboard-9x6-25mm.svg");
        assert_eq!(shipped, chessboard_svg(&Chessboard::STANDARD));
    }
}
