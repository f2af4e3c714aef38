//! The secret rule, committed at the start as a salted hash everyone sees, revealed at the end.
//!
//! Students cannot check a rule they do not know, but they can check that the rule revealed at
//! the end is the one the Master committed to before the first koan: the commitment is
//! `sha256("koanscope-rule/1\n" + salt + "\n" + text)` in hex, the salt 16 random bytes so
//! nobody can try likely rules against the hash.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// The Master's secret: the rule as typed and the salt of its commitment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    pub text: String,
    /// Hex.
    pub salt: String,
}

impl Secret {
    /// A secret with a fresh random salt.
    pub fn new(text: impl Into<String>) -> Secret {
        let mut bytes = [0u8; 16];
        rand::rng().fill_bytes(&mut bytes);
        Secret {
            text: text.into(),
            salt: hex(&bytes),
        }
    }

    /// A secret with a given salt (scripts that must be reproducible, tests).
    pub fn with_salt(text: impl Into<String>, salt: impl Into<String>) -> Secret {
        Secret {
            text: text.into(),
            salt: salt.into(),
        }
    }

    /// The hash shown to everyone at the start.
    pub fn commitment(&self) -> String {
        commitment(&self.text, &self.salt)
    }
}

/// The commitment of a rule text and salt.
pub fn commitment(text: &str, salt: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"koanscope-rule/1\n");
    h.update(salt.as_bytes());
    h.update(b"\n");
    h.update(text.as_bytes());
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_rule_or_salt_changes_the_commitment() {
        let s = Secret::with_salt(
            "A koan has the Buddha-nature if it contains a red piece.",
            "00",
        );
        assert_eq!(s.commitment(), commitment(&s.text, "00"));
        assert_ne!(s.commitment(), commitment(&s.text, "01"));
        assert_ne!(
            s.commitment(),
            commitment(
                "A koan has the Buddha-nature if it contains a blue piece.",
                "00"
            )
        );
        assert_eq!(s.commitment().len(), 64);
    }

    #[test]
    fn fresh_secrets_get_different_salts() {
        assert_ne!(Secret::new("x").salt, Secret::new("x").salt);
    }
}
