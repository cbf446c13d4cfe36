//! How one text becomes another: keep a prefix and a suffix of the old one, with new bytes
//! between ([`Delta`]). The history stores its entries this way, and the trace its new bests.

/// How to get a text from the previous one: keep `prefix` bytes from its start and `suffix`
/// bytes from its end, with `middle` between them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    pub prefix: usize,
    pub suffix: usize,
    pub middle: Vec<u8>,
}

impl Delta {
    /// The delta that makes `new` of `old`.
    pub fn between(old: &[u8], new: &[u8]) -> Delta {
        let (prefix, suffix) = crate::text::atoms::common_ends(old, new);
        Delta {
            prefix,
            suffix,
            middle: new[prefix..new.len() - suffix].to_vec(),
        }
    }

    /// The text this delta makes of `old`; an error when `old` is shorter than the prefix and
    /// suffix it keeps (the delta was made of another text).
    pub fn apply(&self, old: &[u8]) -> Result<Vec<u8>, String> {
        if self.prefix + self.suffix > old.len() {
            return Err("the change does not fit the text it applies to".into());
        }
        let mut text = Vec::with_capacity(self.prefix + self.middle.len() + self.suffix);
        text.extend_from_slice(&old[..self.prefix]);
        text.extend_from_slice(&self.middle);
        text.extend_from_slice(&old[old.len() - self.suffix..]);
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_restore_texts() {
        for (old, new) in [
            (&b"12345"[..], &b"1245"[..]),
            (b"abc", b""),
            (b"", b"xyz"),
            (b"aXa", b"aa"),
            (b"\xff\xfe", b"\xff"),
        ] {
            assert_eq!(Delta::between(old, new).apply(old).unwrap(), new);
        }
        assert!(Delta::between(b"abc", b"abd").apply(b"x").is_err());
    }
}
