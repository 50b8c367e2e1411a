//! The tokenizer and the number spellings, shared by the reader.
//!
//! Tokens are slices of the input: nothing is allocated per token.

use crate::error::{Error, Pos};

/// One token: a run of non-whitespace bytes, or a `"…"` string (without its quotes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok<'a> {
    pub text: &'a [u8],
    pub at: Pos,
    pub quoted: bool,
}

/// A cursor over the text that yields tokens and tracks line and column.
#[derive(Debug, Clone)]
pub(crate) struct Lexer<'a> {
    data: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

impl<'a> Lexer<'a> {
    /// A lexer over `data`, which starts at line 1, column `1 + skipped` (the BOM).
    pub fn new(data: &'a [u8], skipped: usize) -> Self {
        Self {
            data,
            pos: 0,
            line: 1,
            // The column of data[0] is `skipped + 1`.
            line_start: 0usize.wrapping_sub(skipped),
        }
    }

    /// The offset of the next unread byte in the data.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The same lexer over `data`, which is this lexer's data without its first `cut` bytes
    /// (`cut` at most [`Lexer::offset`]): the next token and every position stay the same.
    pub fn rebased<'b>(&self, data: &'b [u8], cut: usize) -> Lexer<'b> {
        Lexer {
            data,
            pos: self.pos.saturating_sub(cut),
            line: self.line,
            line_start: self.line_start.wrapping_sub(cut),
        }
    }

    /// Bytes not yet consumed.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    fn pos_at(&self, index: usize) -> Pos {
        let col = index.wrapping_sub(self.line_start).wrapping_add(1);
        Pos {
            line: self.line,
            column: u32::try_from(col).unwrap_or(u32::MAX),
        }
    }

    /// The position of the next unread byte.
    pub fn here(&self) -> Pos {
        self.pos_at(self.pos)
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            match b {
                b'\n' => {
                    self.pos += 1;
                    self.newline();
                }
                b'\r' => {
                    self.pos += 1;
                    if self.data.get(self.pos) == Some(&b'\n') {
                        self.pos += 1;
                    }
                    self.newline();
                }
                b' ' | b'\t' | 0x0B | 0x0C => self.pos += 1,
                _ => break,
            }
        }
    }

    fn newline(&mut self) {
        self.line = self.line.saturating_add(1);
        self.line_start = self.pos;
    }

    /// The position where the input ends (after trailing whitespace).
    pub fn end_pos(&mut self) -> Pos {
        self.skip_space();
        self.here()
    }

    /// The fast path for the common number token, a plain decimal `[+-]digits[.digits]`
    /// followed by whitespace or the end: consumes it and returns its value. One scan finds the
    /// token's end and checks its shape; `fast-float2` computes the value, so the bits are
    /// those of [`parse_f32`]. `None`, having consumed only whitespace, for anything else (hex,
    /// exponents, MSVC spellings, `inf`/`nan`), which then takes the token path.
    #[inline]
    pub fn plain_f32(&mut self) -> Option<f32> {
        self.skip_space();
        let start = self.pos;
        let mut i = start;
        if matches!(self.data.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let digit = |b: Option<&u8>| b.is_some_and(u8::is_ascii_digit);
        let int_start = i;
        while digit(self.data.get(i)) {
            i += 1;
        }
        let mut digits = i - int_start;
        if self.data.get(i) == Some(&b'.') {
            i += 1;
            let frac_start = i;
            while digit(self.data.get(i)) {
                i += 1;
            }
            digits += i - frac_start;
        }
        if digits == 0 || !self.data.get(i).is_none_or(|&b| is_space(b)) {
            return None;
        }
        let v = fast_float2::parse::<f32, _>(self.data.get(start..i)?).ok()?;
        self.pos = i;
        Some(v)
    }

    /// The fast path for an unsigned integer token of 1 to 9 digits followed by whitespace or
    /// the end: consumes it and returns it with its position. `None`, having consumed only
    /// whitespace, for anything else.
    #[inline]
    pub fn plain_u32(&mut self) -> Option<(u32, Pos)> {
        self.skip_space();
        let start = self.pos;
        let mut i = start;
        let mut v = 0u32;
        while let Some(d) = self
            .data
            .get(i)
            .map(|b| b.wrapping_sub(b'0'))
            .filter(|d| *d < 10)
        {
            v = v.wrapping_mul(10).wrapping_add(u32::from(d));
            i += 1;
        }
        if i == start || i - start > 9 || !self.data.get(i).is_none_or(|&b| is_space(b)) {
            return None;
        }
        self.pos = i;
        Some((v, self.pos_at(start)))
    }

    /// The next token, `None` at the end of the input.
    #[inline]
    pub fn next(&mut self) -> Result<Option<Tok<'a>>, Error> {
        self.skip_space();
        let start = self.pos;
        let at = self.pos_at(start);
        let Some(&first) = self.data.get(start) else {
            return Ok(None);
        };
        let rest = self.data.get(start + 1..).unwrap_or_default();
        if first == b'"' {
            let Some(len) = rest.iter().position(|&b| matches!(b, b'"' | b'\r' | b'\n')) else {
                return Err(Error::Syntax {
                    at,
                    what: "unterminated quoted string: the input ends before the closing `\"`"
                        .into(),
                });
            };
            if rest.get(len) != Some(&b'"') {
                return Err(Error::Syntax {
                    at,
                    what: "unterminated quoted string: the line ends before the closing `\"`"
                        .into(),
                });
            }
            let text = rest.get(..len).unwrap_or_default();
            self.pos = start + 1 + len + 1;
            if let Some(&b) = self.data.get(self.pos) {
                if !is_space(b) {
                    return Err(Error::Syntax {
                        at: self.here(),
                        what: format!(
                            "expected whitespace after a quoted string, found {}",
                            show(&[b])
                        ),
                    });
                }
            }
            return Ok(Some(Tok {
                text,
                at,
                quoted: true,
            }));
        }
        // One pass finds the end of the token and whether it holds a `"`.
        let mut quote = None;
        let mut len = rest.len() + 1;
        for (i, &b) in rest.iter().enumerate() {
            if is_space(b) {
                len = i + 1;
                break;
            }
            if b == b'"' && quote.is_none() {
                quote = Some(i + 1);
            }
        }
        let text = self.data.get(start..start + len).unwrap_or_default();
        if let Some(q) = quote {
            return Err(Error::Syntax {
                at: self.pos_at(start + q),
                what: format!("unexpected `\"` inside the token {}", show(text)),
            });
        }
        self.pos = start + len;
        Ok(Some(Tok {
            text,
            at,
            quoted: false,
        }))
    }
}

/// A token for an error message: quoted, lossily decoded, shortened to 40 characters.
pub(crate) fn show(text: &[u8]) -> String {
    let s = String::from_utf8_lossy(text);
    let mut out: String = s.chars().take(40).collect();
    if s.chars().nth(40).is_some() {
        out.push('…');
    }
    format!("`{out}`")
}

/// An unsigned decimal integer (`+` allowed).
#[inline]
pub(crate) fn parse_u32(t: &[u8]) -> Option<u32> {
    let digits = t.strip_prefix(b"+").unwrap_or(t);
    if digits.is_empty() {
        return None;
    }
    let mut v: u32 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u32::from(d))?;
    }
    Some(v)
}

/// A 32-bit word: unsigned decimal, negative decimal (two's complement of an `i32`), or
/// `0x`/`0X` hexadecimal fitting 32 bits.
#[inline]
pub(crate) fn parse_word(t: &[u8]) -> Option<u32> {
    if let Some(digits) = t.strip_prefix(b"-") {
        let v = i64::from(parse_u32(digits).filter(|_| !digits.starts_with(b"+"))?);
        let n = i32::try_from(-v).ok()?;
        return Some(n as u32);
    }
    let unsigned = t.strip_prefix(b"+").unwrap_or(t);
    if let Some(hex) = unsigned
        .strip_prefix(b"0x")
        .or_else(|| unsigned.strip_prefix(b"0X"))
    {
        if hex.is_empty() {
            return None;
        }
        let mut v: u32 = 0;
        for &b in hex {
            let d = hex_digit(b)?;
            v = v.checked_mul(16)?.checked_add(d)?;
        }
        return Some(v);
    }
    parse_u32(t)
}

fn hex_digit(b: u8) -> Option<u32> {
    char::from(b).to_digit(16)
}

/// The bits of the default quiet NaN.
pub(crate) const QNAN: u32 = 0x7FC0_0000;

/// A C float spelling, see the crate docs. Returns the value; non-finite values are allowed.
#[inline]
pub(crate) fn parse_f32(t: &[u8]) -> Option<f32> {
    let (neg, body) = match t.first() {
        Some(b'-') => (true, t.get(1..)?),
        Some(b'+') => (false, t.get(1..)?),
        _ => (false, t),
    };
    let sign = if neg { 0x8000_0000u32 } else { 0 };
    match *body.first()? {
        b'0'..=b'9' | b'.' => {
            if let Some(hex) = body
                .strip_prefix(b"0x")
                .or_else(|| body.strip_prefix(b"0X"))
            {
                return parse_hex_f32(hex).map(|v| if neg { -v } else { v });
            }
            // fast-float2 refuses `#`, so trying it first sends the MSVC spellings to
            // `parse_msvc` as before, without a scan for `#` in every number.
            if let Ok(v) = fast_float2::parse::<f32, _>(t) {
                return Some(v);
            }
            if body.contains(&b'#') {
                return parse_msvc(body).map(|bits| f32::from_bits(bits ^ sign));
            }
            None
        }
        b'i' | b'I' | b'n' | b'N' => {
            let lower = |s: &[u8], w: &[u8]| s.eq_ignore_ascii_case(w);
            if lower(body, b"inf") || lower(body, b"infinity") {
                return Some(f32::from_bits(0x7F80_0000 | sign));
            }
            let head = body.get(..3)?;
            if !lower(head, b"nan") {
                return None;
            }
            let tail = body.get(3..)?;
            if tail.is_empty() {
                return Some(f32::from_bits(QNAN | sign));
            }
            let inner = tail.strip_prefix(b"(")?.strip_suffix(b")")?;
            if !inner
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                return None;
            }
            // C99: the n-char-sequence is implementation-defined; like glibc, a number sets the
            // mantissa bits, anything else gives the default quiet NaN.
            let mantissa = parse_word(inner).unwrap_or(QNAN) & 0x007F_FFFF;
            let mantissa = if mantissa == 0 {
                QNAN & 0x007F_FFFF
            } else {
                mantissa
            };
            Some(f32::from_bits(0x7F80_0000 | mantissa | sign))
        }
        _ => None,
    }
}

/// MSVC's `1.#INF00`, `1.#QNAN0`, `1.#SNAN0`, `1.#IND00` (sign handled by the caller).
fn parse_msvc(body: &[u8]) -> Option<u32> {
    let hash = body.iter().position(|&b| b == b'#')?;
    let (lead, rest) = body.split_at(hash);
    if lead != b"1." {
        return None;
    }
    let rest = rest.get(1..)?;
    let word_len = rest
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let (word, tail) = rest.split_at(word_len);
    if !tail
        .iter()
        .all(|b| b.is_ascii_digit() || matches!(b, b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let w = |s: &[u8]| word.eq_ignore_ascii_case(s);
    if w(b"INF") {
        Some(0x7F80_0000)
    } else if w(b"IND") || w(b"QNAN") {
        Some(QNAN)
    } else if w(b"SNAN") {
        Some(0x7FA0_0000)
    } else {
        None
    }
}

/// C99 hexadecimal float digits after `0x`: `h[.h][p±d]`, correctly rounded to `f32`.
fn parse_hex_f32(s: &[u8]) -> Option<f32> {
    let mut mant: u64 = 0;
    let mut exp: i64 = 0;
    let mut sticky = false;
    let mut any = false;
    let mut i = 0;
    let mut push = |d: u32, frac: bool, mant: &mut u64, exp: &mut i64| {
        if *mant >> 60 == 0 {
            *mant = (*mant << 4) | u64::from(d);
            if frac {
                *exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !frac {
                *exp += 4;
            }
        }
    };
    while let Some(d) = s.get(i).and_then(|&b| hex_digit(b)) {
        push(d, false, &mut mant, &mut exp);
        any = true;
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        while let Some(d) = s.get(i).and_then(|&b| hex_digit(b)) {
            push(d, true, &mut mant, &mut exp);
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        i += 1;
        let neg = match s.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let digits = s.get(i..)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let mut e: i64 = 0;
        for &b in digits {
            e = (e * 10 + i64::from(b - b'0')).min(1_000_000);
        }
        exp += if neg { -e } else { e };
        i = s.len();
    }
    if i != s.len() {
        return None;
    }
    if mant == 0 {
        return Some(0.0);
    }
    let lz = mant.leading_zeros();
    let mant = mant << lz;
    // value = mant * 2^(e2 - 63), with bit 63 of mant set
    let e2 = exp + 63 - i64::from(lz);
    if e2 > 127 {
        return Some(f32::INFINITY);
    }
    let shift = if e2 >= -126 { 40 } else { 40 + (-126 - e2) };
    if shift >= 128 {
        return Some(0.0);
    }
    let m = u128::from(mant);
    let mut kept = m >> shift;
    let rem = m & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && (sticky || kept & 1 == 1)) {
        kept += 1;
    }
    let mut e2 = e2;
    if e2 >= -126 {
        if kept == 1 << 24 {
            kept >>= 1;
            e2 += 1;
        }
        if e2 > 127 {
            return Some(f32::INFINITY);
        }
        let bits = (((e2 + 127) as u32) << 23) | (kept as u32 & 0x007F_FFFF);
        Some(f32::from_bits(bits))
    } else {
        // Subnormal (or rounded up to the smallest normal, whose bits are the same number).
        Some(f32::from_bits(kept as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Option<u32> {
        parse_f32(s.as_bytes()).map(f32::to_bits)
    }

    #[test]
    fn float_spellings() {
        assert_eq!(f("1"), Some(1.0f32.to_bits()));
        assert_eq!(f("+1.5"), Some(1.5f32.to_bits()));
        assert_eq!(f("-0"), Some((-0.0f32).to_bits()));
        assert_eq!(f(".5"), Some(0.5f32.to_bits()));
        assert_eq!(f("5."), Some(5.0f32.to_bits()));
        assert_eq!(f("1e3"), Some(1000.0f32.to_bits()));
        assert_eq!(f("1.5E-2"), Some(0.015f32.to_bits()));
        assert_eq!(f("INF"), Some(f32::INFINITY.to_bits()));
        assert_eq!(f("-Infinity"), Some(f32::NEG_INFINITY.to_bits()));
        assert_eq!(f("nan"), Some(QNAN));
        assert_eq!(f("-nan(ind)"), Some(QNAN | 0x8000_0000));
        assert_eq!(f("nan(0x1)"), Some(0x7F80_0001));
        assert_eq!(f("1.#QNAN0"), Some(QNAN));
        assert_eq!(f("-1.#IND00"), Some(QNAN | 0x8000_0000));
        assert_eq!(f("1.#INF00"), Some(0x7F80_0000));
        assert_eq!(f("-1.#INF"), Some(0xFF80_0000));
        assert_eq!(f("0x1p0"), Some(1.0f32.to_bits()));
        assert_eq!(f("-0x1.8p1"), Some((-3.0f32).to_bits()));
        assert_eq!(f("0x.8"), Some(0.5f32.to_bits()));
        assert_eq!(f("0x1p-149"), Some(1));
        assert_eq!(f("0x1p-150"), Some(0));
        assert_eq!(f("0x1.8p-150"), Some(1));
        assert_eq!(f("0x1.fffffep127"), Some(f32::MAX.to_bits()));
        assert_eq!(f("0x1.ffffffp127"), Some(f32::INFINITY.to_bits()));
        assert_eq!(f("0x1.000001p0"), Some(1.0f32.to_bits()));
        assert_eq!(f("0x1.0000011p0"), Some(1.0f32.to_bits() + 1));
        assert_eq!(f("0x1.000003p0"), Some(1.0f32.to_bits() + 2));
        for bad in [
            "", "-", "+", ".", "1e", "1.2.3", "abc", "1x", "0x", "0xp1", "nanx", "1.#FOO", "--1",
            "1,5",
        ] {
            assert_eq!(f(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integer_spellings() {
        assert_eq!(parse_u32(b"0"), Some(0));
        assert_eq!(parse_u32(b"+12"), Some(12));
        assert_eq!(parse_u32(b"4294967295"), Some(u32::MAX));
        assert_eq!(parse_u32(b"4294967296"), None);
        assert_eq!(parse_u32(b"-1"), None);
        assert_eq!(parse_u32(b"1.0"), None);
        assert_eq!(parse_word(b"-1"), Some(u32::MAX));
        assert_eq!(parse_word(b"-2147483648"), Some(0x8000_0000));
        assert_eq!(parse_word(b"-2147483649"), None);
        assert_eq!(parse_word(b"0x03020100"), Some(0x0302_0100));
        assert_eq!(parse_word(b"0XFFFFFFFF"), Some(u32::MAX));
        assert_eq!(parse_word(b"0x100000000"), None);
        assert_eq!(parse_word(b"0x"), None);
        assert_eq!(parse_word(b"--1"), None);
        assert_eq!(parse_word(b"-+1"), None);
    }

    #[test]
    fn tokens_track_lines_and_columns() {
        let text = b"a  \"b c\"\r\n\tdd\r\"\"\n";
        let mut lx = Lexer::new(text, 0);
        let t = lx.next().unwrap().unwrap();
        assert_eq!((t.text, t.at.line, t.at.column), (&b"a"[..], 1, 1));
        let t = lx.next().unwrap().unwrap();
        assert_eq!(
            (t.text, t.at.line, t.at.column, t.quoted),
            (&b"b c"[..], 1, 4, true)
        );
        let t = lx.next().unwrap().unwrap();
        assert_eq!((t.text, t.at.line, t.at.column), (&b"dd"[..], 2, 2));
        let t = lx.next().unwrap().unwrap();
        assert_eq!((t.text, t.at.line, t.at.column), (&b""[..], 3, 1));
        assert!(lx.next().unwrap().is_none());
        assert!(Lexer::new(b"\"abc", 0).next().is_err());
        assert!(Lexer::new(b"\"a\nb\"", 0).next().is_err());
        assert!(Lexer::new(b"\"a\"b", 0).next().is_err());
        assert!(Lexer::new(b"a\"b", 0).next().is_err());
    }

    #[test]
    fn plain_fast_paths_agree_with_the_token_parsers() {
        let numbers = [
            "0",
            "-0",
            "+1.5",
            "-11.001263",
            "0.999684",
            "16777216",
            "16777217",
            "-18.123456",
            "3.4028235",
            "0.0000001",
            "1.",
            ".5",
            "123456789",
            "1234567890",
            "1e5",
            "1.#INF",
            "0x10",
            "nan",
            "-",
            ".",
            "1.2.3",
            "7a",
        ];
        for text in numbers {
            let input = format!("{text} x");
            let mut fast = Lexer::new(input.as_bytes(), 0);
            let token = parse_f32(text.as_bytes());
            match fast.plain_f32() {
                Some(v) => {
                    assert_eq!(Some(v.to_bits()), token.map(f32::to_bits), "{text}");
                    assert_eq!(fast.next().unwrap().unwrap().text, b"x", "{text}");
                }
                None => {
                    // Nothing consumed: the token path sees the whole token.
                    assert_eq!(
                        fast.next().unwrap().unwrap().text,
                        text.as_bytes(),
                        "{text}"
                    );
                }
            }
            let mut fast = Lexer::new(input.as_bytes(), 0);
            if let Some((v, at)) = fast.plain_u32() {
                assert_eq!(Some(v), parse_u32(text.as_bytes()), "{text}");
                assert_eq!(Some(v), parse_word(text.as_bytes()), "{text}");
                assert_eq!((at.line, at.column), (1, 1));
            } else {
                assert_eq!(
                    fast.next().unwrap().unwrap().text,
                    text.as_bytes(),
                    "{text}"
                );
            }
        }
        assert!(Lexer::new(b"1.5\"", 0).plain_f32().is_none());
        assert!(Lexer::new(b"12\"", 0).plain_u32().is_none());
        assert_eq!(
            Lexer::new(b"\r\n 12", 0)
                .plain_u32()
                .map(|(_, p)| (p.line, p.column)),
            Some((2, 2))
        );
    }
}
