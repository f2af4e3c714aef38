use koanscope_rules::*;
fn main() {
    let rule = Rule {
        polarity: Polarity::Has,
        cond: Cond::Majority {
            domain: Filter::Any,
            pred: Filter::and(vec![
                Filter::Largest,
                Filter::PointsThrough(
                    Box::new(Filter::Color(koanscope_scene::Color::Red)),
                    Box::new(Filter::Any),
                ),
            ]),
        },
    };
    println!("{}", render::rule(&rule));
}
