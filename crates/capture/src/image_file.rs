//! What the image decoders do not say about a file. A JPEG cut short (copied or downloaded
//! while still being written, a camera that stopped saving) decodes without an error in both
//! OpenCV and the `image` crate: the rows it lacks come out grey, and the pieces on them
//! silently vanish from the table.

/// JPEG markers: start of image, start of scan, end of image.
const SOI: [u8; 2] = [0xFF, 0xD8];
const SOS: [u8; 2] = [0xFF, 0xDA];
const EOI: [u8; 2] = [0xFF, 0xD9];

/// Whether `bytes`, a JPEG file, end before its picture does: its last scan is not followed by
/// the end-of-image marker. (Inside a scan's data a 0xFF byte is always followed by 0x00 or a
/// restart marker, so neither marker can appear there by chance; data a camera appends after
/// the end of the image is allowed.) Anything that is not a JPEG is not judged here.
pub fn jpeg_cut_short(bytes: &[u8]) -> bool {
    if !bytes.starts_with(&SOI) {
        return false;
    }
    let Some(last_scan) = bytes.windows(2).rposition(|w| w == SOS) else {
        // No scan at all: no picture to cut short (the decoder refuses such a file itself).
        return false;
    };
    !bytes[last_scan..].windows(2).any(|w| w == EOI)
}

/// What to tell the user about a JPEG cut short.
pub const CUT_SHORT: &str = "the JPEG data ends before the picture does (the file was cut \
     short, e.g. copied or saved while still being written), and its missing rows would read \
     as plain grey: copy or save it again";

#[cfg(test)]
mod tests {
    use super::jpeg_cut_short;

    /// A real JPEG, encoded here: 64x48 px of a gradient.
    fn jpeg() -> Vec<u8> {
        let image =
            image::RgbImage::from_fn(64, 48, |x, y| image::Rgb([x as u8 * 4, y as u8 * 5, 90]));
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut bytes)
            .encode_image(&image)
            .expect("encoded");
        bytes
    }

    #[test]
    fn a_whole_jpeg_is_not_cut_short_and_every_truncation_of_its_scan_is() {
        let whole = jpeg();
        assert!(!jpeg_cut_short(&whole));
        // Data a camera appends after the end of the image is no truncation.
        let mut trailer = whole.clone();
        trailer.extend_from_slice(b"\0\0camera trailer\n");
        assert!(!jpeg_cut_short(&trailer));
        let scan = whole
            .windows(2)
            .rposition(|w| w == [0xFF, 0xDA])
            .expect("a scan");
        for end in (scan + 2..whole.len()).step_by(7) {
            assert!(
                jpeg_cut_short(&whole[..end]),
                "cut at {end} of {}",
                whole.len()
            );
        }
        // And the decoder really does take such a file without a word: why the check exists.
        let half = &whole[..(scan + whole.len()) / 2];
        assert!(image::load_from_memory(half).is_ok());
    }

    #[test]
    fn other_files_are_not_judged() {
        assert!(!jpeg_cut_short(b""));
        assert!(!jpeg_cut_short(b"\x89PNG\r\n\x1a\n"));
        assert!(!jpeg_cut_short(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16]));
    }
}
