//! Prints how the colour model classes the pixels of part of a frame, one character a sample
//! (`.` table, `?` unknown or tinted shadow, `r y g b k` a colour), to see why a piece was read
//! as it was: `cargo run --release -p koanscope-vision --example classes -- <frame> x0 y0 x1 y1
//! [step] [colors.toml]`.

use std::path::PathBuf;

use koanscope_scene::Color;
use koanscope_vision::ColorModel;
use koanscope_vision::image::read_bgr;
use koanscope_vision::segment::segment;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, frame, x0, y0, x1, y1, rest @ ..] = args.as_slice() else {
        return Err("usage: classes <frame> x0 y0 x1 y1 [step] [colors.toml]".into());
    };
    let [x0, y0, x1, y1]: [usize; 4] = [x0.parse()?, y0.parse()?, x1.parse()?, y1.parse()?];
    let step: usize = rest.first().map_or(Ok(1), |s| s.parse())?;
    let model = ColorModel::load_or_shipped(rest.get(1).map(PathBuf::from).as_deref())?;
    let seg = segment(&read_bgr(&PathBuf::from(frame))?, &model)?;
    let letter = |class: u8| match class {
        0 => '.',
        1 => '?',
        c => match seg.palette.get(usize::from(c) - 2) {
            Some(Color::Red) => 'r',
            Some(Color::Yellow) => 'y',
            Some(Color::Green) => 'g',
            Some(Color::Blue) => 'b',
            Some(Color::Black) => 'k',
            _ => '*',
        },
    };
    for y in (y0..=y1.min(seg.height - 1)).step_by(step.max(1)) {
        let line: String = (x0..=x1.min(seg.width - 1))
            .step_by(step.max(1))
            .map(|x| letter(seg.classes[y * seg.width + x]))
            .collect();
        println!("{y:4} {line}");
    }
    Ok(())
}
