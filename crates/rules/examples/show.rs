//! Prints what the parser makes of each line of standard input (a development aid).
use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        if line.trim().is_empty() {
            continue;
        }
        println!("> {line}");
        match koanscope_rules::parse(&line) {
            Ok(koanscope_rules::Parsed::Rule(r)) => {
                let text = koanscope_rules::render::rule(&r);
                let back = koanscope_rules::parse_rule(&text);
                let same = back.as_ref().ok() == Some(&r);
                println!(
                    "  = {text}{}",
                    if same { "" } else { "   [ROUND TRIP FAILS]" }
                );
                if !same {
                    println!("    {:?}\n    {:?}", r, back);
                }
            }
            Ok(koanscope_rules::Parsed::NeedsChoice { question, readings }) => {
                println!("  ? {question}");
                for r in readings {
                    println!("    - {}", koanscope_rules::render::rule(&r));
                }
            }
            Err(e) => println!("  ! {e}"),
        }
    }
}
