//! Words and punctuation of a rule, each with the column it starts at.

/// One token: a lowercase word (apostrophes and hyphens kept inside) or one punctuation mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Lowercase, curly apostrophes made straight.
    pub word: String,
    /// The text as the user typed it.
    pub text: String,
    /// 1-based column of the first character, counted in characters.
    pub column: usize,
}

/// Splits a rule into tokens. Never fails: characters the grammar does not know become tokens
/// of their own, and the parser says what it expected there.
pub fn lex(input: &str) -> Vec<Token> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_alphanumeric() {
            while i < chars.len() {
                let d = chars[i];
                let joins = (d == '\'' || d == '’' || d == '-')
                    && i + 1 < chars.len()
                    && chars[i + 1].is_alphanumeric()
                    && i > start;
                if d.is_alphanumeric() || joins {
                    i += 1;
                } else {
                    break;
                }
            }
        } else if c == '.' && chars.get(i + 1) == Some(&'.') && chars.get(i + 2) == Some(&'.') {
            i += 3;
        } else {
            i += 1;
        }
        let text: String = chars[start..i].iter().collect();
        let word = text.to_lowercase().replace('’', "'").replace("...", "…");
        tokens.push(Token {
            word,
            text,
            column: start + 1,
        });
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_hyphens_and_apostrophes_and_columns() {
        let t = lex("Must contain zero Large's, or lying-down pieces…");
        let words: Vec<&str> = t.iter().map(|t| t.word.as_str()).collect();
        assert_eq!(
            words,
            [
                "must",
                "contain",
                "zero",
                "large's",
                ",",
                "or",
                "lying-down",
                "pieces",
                "…"
            ]
        );
        assert_eq!(t[2].column, 14);
    }
}
