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

use crate::runs::Runs;

/// Every line of a run of data lines ([`super::spans::Run`]'s text: lines already checked
/// by the lexer, blank lines between them), each `N` numbers separated by `:`, appended to
/// `out`; `None`, with `out` as it was, as soon as one line is not what [`row`] takes.
///
/// One pass over the run: no line split, trim or closure per line (the typed reader's hot
/// loop: a million rows per scope in the large model). A line here is what [`row`] reads
/// from the line alone, so the caller's fallback, line by line, reads the same values or
/// gives the error.
pub(crate) fn rows<const N: usize>(text: &str, out: &mut Vec<[f64; N]>) -> Option<()> {
    let before = out.len();
    let done = each_line(text, |s| {
        out.push(s.row::<N>()?);
        s.ws();
        Some(())
    });
    if done.is_none() {
        out.truncate(before);
    }
    done
}

/// Every line of a run of faces (see [`rows`] and [`face`]), each corner below `vertices`:
/// the corners appended to `indices`, the sizes to `sizes`; `None`, with both as they were,
/// at the first other line.
pub(crate) fn faces(
    text: &str,
    vertices: usize,
    indices: &mut Vec<u32>,
    sizes: &mut Runs,
) -> Option<()> {
    let (before, faces_before) = (indices.len(), sizes.len());
    let done = each_line(text, |s| {
        let start = indices.len();
        let n = s.face(indices)?;
        let corners = indices.get(start..).unwrap_or_default();
        corners
            .iter()
            .all(|&i| (i as usize) < vertices)
            .then(|| sizes.push(n))
    });
    if done.is_none() {
        indices.truncate(before);
        sizes.truncate(faces_before);
    }
    done
}

/// Every line of a run of single indices below `len` (see [`rows`] and [`index`]), appended
/// to `out`; `None`, with `out` as it was, at the first other line.
pub(crate) fn indices(text: &str, len: usize, out: &mut Runs) -> Option<()> {
    let before = out.len();
    let done = each_line(text, |s| {
        s.ws();
        out.push(s.digits().filter(|&i| (i as usize) < len)?);
        s.ws();
        Some(())
    });
    if done.is_none() {
        out.truncate(before);
    }
    done
}

/// The loop of [`rows`], [`faces`] and [`indices`]: `line` reads one line's values (and its
/// trailing spaces), then the scan moves past the line ending and blank lines; `None` as soon
/// as `line` refuses or something else follows the values. Callers undo what they appended.
fn each_line(text: &str, mut line: impl FnMut(&mut Scan<'_>) -> Option<()>) -> Option<()> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
    };
    loop {
        line(&mut s)?;
        if !s.next_line()? {
            return Some(());
        }
    }
}

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
    let n = s.face(indices)?;
    s.end().then_some(n)
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

    /// After a line's values and its trailing spaces: `Some(true)` past the line ending and
    /// any blank lines after it, `Some(false)` at the end of the text, `None` before anything
    /// else.
    fn next_line(&mut self) -> Option<bool> {
        if self.end() {
            return Some(false);
        }
        if !matches!(self.peek(), Some(b'\r' | b'\n')) {
            return None;
        }
        while matches!(self.peek(), Some(b'\r' | b'\n' | b' ' | b'\t')) {
            self.i += 1;
        }
        Some(!self.end())
    }

    /// A face `n,i0:i1:…` with n ≥ 3 and n corners, digits only, and the spaces after it:
    /// appends the corners to `indices` (the caller truncates on `None`).
    fn face(&mut self, indices: &mut Vec<u32>) -> Option<u32> {
        let before = indices.len();
        self.ws();
        let n = self.digits()?;
        self.ws();
        self.eat(b',')?;
        loop {
            self.ws();
            indices.push(self.digits()?);
            self.ws();
            if self.eat(b':').is_none() {
                break;
            }
        }
        let count = indices.len() - before;
        (n >= 3 && n as usize == count).then_some(n)
    }

    /// An unsigned integer of 1 to 9 digits (so it fits `u32` without an overflow check),
    /// read in one pass; `None` at a tenth digit.
    fn digits(&mut self) -> Option<u32> {
        let mut value = 0u32;
        let mut n = 0;
        while let Some(d) = self
            .peek()
            .map(|c| c.wrapping_sub(b'0'))
            .filter(|&d| d < 10)
        {
            if n == 9 {
                return None;
            }
            value = value * 10 + u32::from(d);
            n += 1;
            self.i += 1;
        }
        (n > 0).then_some(value)
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
        // A line ending only ends a number in a run read whole ([`rows`]); a single line has
        // none.
        matches!(
            self.peek(),
            None | Some(b' ' | b'\t' | b':' | b'\r' | b'\n')
        )
        .then_some(value)
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

    /// A run is read whole only when every line is what the line reading takes; otherwise
    /// nothing is kept, and the caller reads line by line.
    #[test]
    fn takes_whole_runs_or_nothing() {
        let mut v = vec![[0.0; 3]];
        assert_eq!(
            rows::<3>("1:2:3 \r\n\r\n\t 4:5:6\r7:8:9\n-1:.5:2e1", &mut v),
            Some(())
        );
        assert_eq!(v.len(), 5);
        assert_eq!(v[4], [-1.0, 0.5, 20.0]);
        for bad in [
            "1:2:3\r\n4:5",
            "1:2:3\n4:5:6:7",
            "1:2:3\n4:5:6 x",
            "1:2:3 4:5:6",
        ] {
            assert_eq!(rows::<3>(bad, &mut v), None, "{bad:?}");
            assert_eq!(v.len(), 5, "{bad:?}: nothing kept");
        }
        let (mut idx, mut sizes) = (vec![9], Runs::from([1]));
        assert_eq!(
            faces("3,0:1:2\r\n 4,3:2:1:0", 4, &mut idx, &mut sizes),
            Some(())
        );
        assert_eq!(
            (idx.as_slice(), sizes.to_vec().as_slice()),
            (&[9, 0, 1, 2, 3, 2, 1, 0][..], &[1, 3, 4][..])
        );
        for bad in ["3,0:1:2\n3,0:1:4", "3,0:1:2\n3,0:1", "3,0:1:2\n3,0:1:2,"] {
            assert_eq!(faces(bad, 4, &mut idx, &mut sizes), None, "{bad:?}");
            assert_eq!((idx.len(), sizes.len()), (8, 3), "{bad:?}: nothing kept");
        }
        let mut at = Runs::from([7]);
        assert_eq!(indices("0\r\n1 \n\n0", 2, &mut at), Some(()));
        assert_eq!(at, [7, 0, 1, 0]);
        for bad in ["0\n2", "0\n1:1", "0\n-1"] {
            assert_eq!(indices(bad, 2, &mut at), None, "{bad:?}");
            assert_eq!(at.len(), 4, "{bad:?}: nothing kept");
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
