//! The fast readings of a line of bulk data (`Positions`, `Normals`, the UV sets, key rows,
//! `VertexIndices`, `Attributes`): numbers and indices read straight from the line's slice of
//! the input, with no atom made.
//!
//! Each reading accepts only what the general reading (atoms, then [`parse_f64`] or an
//! integer) reads without an error or a warning, and gives the same values, bit for bit.
//! On `None` the typed reader reads the line the general way, which gives the exact error or
//! warning and its position.
//!
//! [`parse_f64`]: crate::number::parse_f64

/// `N` numbers separated by `:`, the whole line.
pub(crate) fn row<const N: usize>(text: &str) -> Option<[f64; N]> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    let out = s.row::<N>()?;
    s.ws();
    s.end().then_some(out)
}

/// A face `n,i0:i1:…` with n ≥ 3 and n corners, digits only: appends the corners to
/// `indices` and returns n; on `None`, `indices` is as it was.
pub(crate) fn face(text: &str, indices: &mut Vec<u32>) -> Option<u32> {
    let before = indices.len();
    let n = face_into(text, indices);
    if n.is_none() {
        indices.truncate(before);
    }
    n
}

fn face_into(text: &str, indices: &mut Vec<u32>) -> Option<u32> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    let before = indices.len();
    s.ws();
    let n = s.digits()?;
    s.ws();
    s.eat(b',')?;
    loop {
        s.ws();
        indices.push(s.digits()?);
        s.ws();
        if s.eat(b':').is_none() {
            break;
        }
    }
    let count = indices.len() - before;
    (s.end() && n >= 3 && n as usize == count).then_some(n)
}

/// One index of 1 to 9 digits, the whole line.
pub(crate) fn index(text: &str) -> Option<u32> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    s.ws();
    let v = s.digits()?;
    s.ws();
    s.end().then_some(v)
}

/// A byte cursor over the values text of one line.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn end(&self) -> bool {
        self.i == self.b.len()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.i += 1)
    }

    fn digit_run(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    /// An unsigned integer of 1 to 9 digits (so it fits `u32` without an overflow check).
    fn digits(&mut self) -> Option<u32> {
        let start = self.i;
        let n = self.digit_run();
        if n == 0 || n > 9 {
            return None;
        }
        let digits = self.b.get(start..self.i)?;
        Some(
            digits
                .iter()
                .fold(0, |acc, &d| acc * 10 + u32::from(d - b'0')),
        )
    }

    /// One number of the specification's grammar
    /// (`[+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]`), followed by a space, a
    /// tab, `:` or the end. `fast-float2` reads the token and says where it ends, in one pass
    /// (a scan of our own before it read every number twice); its grammar is the
    /// specification's, except that it also reads `inf` and `nan`, which start with a letter
    /// and are refused first. The bits are those of [`parse_f64`](crate::number::parse_f64),
    /// which runs the same parser on the same token.
    fn number(&mut self) -> Option<f64> {
        let rest = self.b.get(self.i..)?;
        let first = match rest {
            [b'+' | b'-', c, ..] | [c, ..] => *c,
            [] => return None,
        };
        if !(first.is_ascii_digit() || first == b'.') {
            return None;
        }
        let (value, len) = fast_float2::parse_partial::<f64, _>(rest).ok()?;
        self.i += len;
        matches!(self.peek(), None | Some(b' ' | b'\t' | b':')).then_some(value)
    }

    /// `N` numbers separated by `:`.
    fn row<const N: usize>(&mut self) -> Option<[f64; N]> {
        let mut out = [0.0; N];
        for (k, slot) in out.iter_mut().enumerate() {
            self.ws();
            *slot = self.number()?;
            self.ws();
            if k + 1 < N {
                self.eat(b':')?;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::number::{parse_f64, Num};

    #[test]
    fn takes_plain_rows() {
        assert_eq!(row::<3>("1.5:-2: 3e2"), Some([1.5, -2.0, 300.0]));
        let r = row::<3>("-0 :.5:7.").unwrap();
        assert_eq!(r, [-0.0, 0.5, 7.0]);
        assert!(r[0].is_sign_negative());
        for bad in [
            "1:2",
            "1:2:3:4",
            "1:2,3",
            "1:\"2\":3",
            "1:2:1.#QNAN",
            "1::3",
            "a:b:c",
            "1:2:3 {",
            "1:2:3e",
            "1:2:3e+",
            "1:2:inf",
            "1:2:-nan",
            "1:2:+infinity",
            "1:2:.",
            "1:2:.e5",
            "1:2:+-3",
            "1:2:3.5.1",
            "",
        ] {
            assert!(row::<3>(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn numbers_have_the_bits_of_the_general_reading() {
        for text in [
            "0.1",
            "-11.001263",
            "123456789.123456",
            "1e22",
            "1e23",
            "4.9e-324",
            "1e-400",
            "1e400",
            "9007199254740993",
            "12345678901234567890123",
            "0.000000",
            "-0.000000",
            "+3.25E+02",
            "1.e5",
            "-.5e-3",
            "1.7976931348623157e308",
        ] {
            let [a, b] = row::<2>(&format!("{text}:{text}")).unwrap();
            let expected = match parse_f64(text) {
                Some(Num::Finite(v)) => v,
                _ => panic!("{text} is a number"),
            };
            assert_eq!(a.to_bits(), expected.to_bits(), "{text}");
            assert_eq!(b.to_bits(), expected.to_bits(), "{text}");
        }
    }

    #[test]
    fn takes_faces_and_indices() {
        let mut v = Vec::new();
        assert_eq!(face("3,0:1:2", &mut v), Some(3));
        assert_eq!(face("4, 3 : 4:5:6", &mut v), Some(4));
        assert_eq!(v, [0, 1, 2, 3, 4, 5, 6]);
        for bad in [
            "2,0:1",
            "3,0:1",
            "3:0:1:2",
            "3,0,1:2",
            "3,+0:1:2",
            "3,0:1:9999999999",
            "3,0:1:2.0",
            "3,0:1:2 x",
        ] {
            assert!(face(bad, &mut v).is_none(), "{bad}");
            assert_eq!(v.len(), 7, "{bad}: no index kept");
        }
        assert_eq!(index("7"), Some(7));
        assert_eq!(index(" 0 "), Some(0));
        for bad in ["-1", "1:2", "", "1234567890", "\"1\""] {
            assert!(index(bad).is_none(), "{bad}");
        }
    }
}
