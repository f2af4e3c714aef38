// scratch: Lab (OpenCV 8-bit) at points, as L* a* b* C
use koanscope_vision::ColorModel;
use koanscope_vision::image::read_bgr;
use koanscope_vision::segment::segment;
use std::path::PathBuf;
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let model = ColorModel::load_or_shipped(None)?;
    let seg = segment(&read_bgr(&PathBuf::from(&args[1]))?, &model)?;
    let lab = seg.lab_bytes();
    for p in args[2..].chunks(2) {
        let (x, y): (usize, usize) = (p[0].parse()?, p[1].parse()?);
        let mut acc = [0f64; 3];
        for dy in 0..3 {
            for dx in 0..3 {
                let k = ((y + dy - 1) * seg.width + x + dx - 1) * 3;
                for c in 0..3 {
                    acc[c] += lab[k + c] as f64 / 9.0;
                }
            }
        }
        let (l, a, b) = (acc[0] * 100.0 / 255.0, acc[1] - 128.0, acc[2] - 128.0);
        println!(
            "({x},{y}) class {} L {l:.1} a {a:.1} b {b:.1} C {:.1} hue {:.0} C/L {:.2}",
            seg.classes[y * seg.width + x],
            a.hypot(b),
            b.atan2(a).to_degrees(),
            a.hypot(b) / l
        );
    }
    Ok(())
}
