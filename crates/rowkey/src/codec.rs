//! Order-preserving encoding and decoding of single fields (see KEYS.md).

use std::borrow::Cow;

use crate::calendar;
use crate::error::KeyError;
use crate::field::{Cycle, Field, FieldType, Order, Pad, TsFormat, Width};
use crate::value::Value;

const SIGN64: u64 = 1 << 63;

fn mismatch(field: &Field, expected: &'static str, got: &Value) -> KeyError {
    KeyError::TypeMismatch { field: field.name.clone(), expected, got: got.kind() }
}

fn too_wide(field: &Field, width: usize, needed: usize) -> KeyError {
    KeyError::ValueTooWide { field: field.name.clone(), width, needed }
}

fn invalid(field: &Field, reason: impl Into<String>) -> KeyError {
    KeyError::InvalidEncoding { field: field.name.clone(), reason: reason.into() }
}

fn unsigned(field: &Field, v: &Value, width: usize, out: &mut Vec<u8>) -> Result<(), KeyError> {
    let Value::UInt(n) = v else {
        return Err(mismatch(field, "unsigned integer", v));
    };
    let needed = (8 - (n.leading_zeros() / 8) as usize).max(1);
    if needed > width {
        return Err(too_wide(field, width, needed));
    }
    out.extend_from_slice(&n.to_be_bytes()[8 - width..]);
    Ok(())
}

fn signed(field: &Field, v: &Value, width: usize, out: &mut Vec<u8>) -> Result<(), KeyError> {
    let Value::Int(n) = v else {
        return Err(mismatch(field, "signed integer", v));
    };
    let bits = (width * 8) as u32;
    let (min, max) = if bits == 64 { (i64::MIN, i64::MAX) } else { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) };
    if *n < min || *n > max {
        let needed = (1..=8)
            .find(|w| {
                let b = w * 8 - 1;
                b >= 63 || (*n >= -(1i64 << b) && *n < (1i64 << b))
            })
            .unwrap_or(8);
        return Err(too_wide(field, width, needed));
    }
    let flipped = (*n as u64) ^ (1u64 << (bits - 1));
    out.extend_from_slice(&flipped.to_be_bytes()[8 - width..]);
    Ok(())
}

/// Order-preserving bits of an f64.
pub(crate) fn f64_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b & SIGN64 != 0 {
        !b
    } else {
        b ^ SIGN64
    }
}

fn f64_from_bits(b: u64) -> f64 {
    f64::from_bits(if b & SIGN64 != 0 { b ^ SIGN64 } else { !b })
}

fn f32_bits(x: f32) -> u32 {
    let b = x.to_bits();
    if b & (1 << 31) != 0 {
        !b
    } else {
        b ^ (1 << 31)
    }
}

fn f32_from_bits(b: u32) -> f32 {
    f32::from_bits(if b & (1 << 31) != 0 { b ^ (1 << 31) } else { !b })
}

/// Phoenix's DOUBLE bits: `Double.doubleToLongBits` (every NaN becomes the canonical
/// `0x7ff8000000000000`), the order-preserving transform, then `+ 1` (wrapping).
pub(crate) fn phoenix_f64_bits(x: f64) -> u64 {
    let x = if x.is_nan() { f64::from_bits(0x7ff8_0000_0000_0000) } else { x };
    f64_bits(x).wrapping_add(1)
}

fn phoenix_f64_from_bits(b: u64) -> f64 {
    f64_from_bits(b.wrapping_sub(1))
}

/// Phoenix's FLOAT bits: `Float.floatToIntBits` (every NaN becomes `0x7fc00000`), the
/// order-preserving transform, then `+ 1` (wrapping).
fn phoenix_f32_bits(x: f32) -> u32 {
    let x = if x.is_nan() { f32::from_bits(0x7fc0_0000) } else { x };
    f32_bits(x).wrapping_add(1)
}

fn phoenix_f32_from_bits(b: u32) -> f32 {
    f32_from_bits(b.wrapping_sub(1))
}

fn put_width(field: &Field, raw: &[u8], width: Width, out: &mut Vec<u8>) -> Result<(), KeyError> {
    match width {
        Width::Rest => out.extend_from_slice(raw),
        Width::Fixed { len, pad } => {
            if raw.len() > len {
                return Err(too_wide(field, len, raw.len()));
            }
            let fill = len - raw.len();
            match pad {
                Pad::Left(p) => {
                    out.resize(out.len() + fill, p);
                    out.extend_from_slice(raw);
                }
                Pad::Right(p) => {
                    out.extend_from_slice(raw);
                    out.resize(out.len() + fill, p);
                }
            }
        }
        Width::Variable => {
            for &b in raw {
                out.push(b);
                if b == 0 {
                    out.push(0xFF);
                }
            }
            out.extend_from_slice(&[0x00, 0x01]);
        }
        Width::Delimited(d) => {
            if raw.contains(&d) {
                return Err(KeyError::OutOfRange {
                    field: field.name.clone(),
                    reason: format!("value contains the delimiter byte 0x{d:02X}"),
                });
            }
            out.extend_from_slice(raw);
            out.push(d);
        }
    }
    Ok(())
}

fn cyclic_text(field: &Field, v: &Value, per_second: i64, cycle: Cycle) -> Result<String, KeyError> {
    match v {
        Value::Timestamp(ts) => {
            let (_, m, d) = calendar::date_of(*ts, per_second);
            Ok(match cycle {
                Cycle::Yearly => format!("{m:02}-{d:02}"),
                Cycle::Monthly => format!("{d:02}"),
            })
        }
        Value::Str(s) if s.len() == cycle.width() => Ok(s.clone()),
        Value::Str(s) => Err(too_wide(field, cycle.width(), s.len())),
        other => Err(mismatch(field, "timestamp", other)),
    }
}

/// Appends the encoding of `value` for `field` (ascending, then complemented if descending).
pub(crate) fn encode_field(field: &Field, value: Option<&Value>, out: &mut Vec<u8>) -> Result<(), KeyError> {
    let start = out.len();
    let need =
        || value.ok_or_else(|| KeyError::InvalidQuery { reason: format!("no value for field `{}`", field.name) });
    match &field.ty {
        FieldType::Literal(b) => out.extend_from_slice(b),
        FieldType::U8 => unsigned(field, need()?, 1, out)?,
        FieldType::U16 => unsigned(field, need()?, 2, out)?,
        FieldType::U32 => unsigned(field, need()?, 4, out)?,
        FieldType::U64 => unsigned(field, need()?, 8, out)?,
        FieldType::I8 => signed(field, need()?, 1, out)?,
        FieldType::I16 => signed(field, need()?, 2, out)?,
        FieldType::I32 => signed(field, need()?, 4, out)?,
        FieldType::I64 => signed(field, need()?, 8, out)?,
        FieldType::F32 => match need()? {
            Value::F32(x) => out.extend_from_slice(&f32_bits(*x).to_be_bytes()),
            other => return Err(mismatch(field, "f32", other)),
        },
        FieldType::F64 => match need()? {
            Value::F64(x) => out.extend_from_slice(&f64_bits(*x).to_be_bytes()),
            other => return Err(mismatch(field, "f64", other)),
        },
        FieldType::PhoenixFloat => match need()? {
            Value::F32(x) => out.extend_from_slice(&phoenix_f32_bits(*x).to_be_bytes()),
            other => return Err(mismatch(field, "f32", other)),
        },
        FieldType::PhoenixDouble => match need()? {
            Value::F64(x) => out.extend_from_slice(&phoenix_f64_bits(*x).to_be_bytes()),
            other => return Err(mismatch(field, "f64", other)),
        },
        FieldType::Bool => match need()? {
            Value::Bool(b) => out.push(u8::from(*b)),
            other => return Err(mismatch(field, "bool", other)),
        },
        FieldType::Bytes(w) => match need()? {
            Value::Bytes(b) => put_width(field, b, *w, out)?,
            other => return Err(mismatch(field, "bytes", other)),
        },
        FieldType::Str(w) => match need()? {
            Value::Str(s) => put_width(field, s.as_bytes(), *w, out)?,
            other => return Err(mismatch(field, "string", other)),
        },
        FieldType::ReversedStr(w) => match need()? {
            Value::Str(s) => {
                let r: String = s.chars().rev().collect();
                put_width(field, r.as_bytes(), *w, out)?
            }
            other => return Err(mismatch(field, "string", other)),
        },
        FieldType::Decimal { digits } => match need()? {
            Value::UInt(n) => {
                let w = usize::from(*digits);
                let len = crate::digits::decimal_len(*n);
                if len > w {
                    return Err(too_wide(field, w, len));
                }
                crate::digits::push_decimal(out, *n, w);
            }
            other => return Err(mismatch(field, "unsigned integer", other)),
        },
        FieldType::Timestamp { format, .. } => {
            let ts = match need()? {
                Value::Timestamp(t) | Value::Int(t) => *t,
                other => return Err(mismatch(field, "timestamp", other)),
            };
            let bits = match format {
                TsFormat::Binary => (ts as u64) ^ SIGN64,
                TsFormat::ReverseLong => {
                    if ts < 0 {
                        return Err(KeyError::OutOfRange {
                            field: field.name.clone(),
                            reason: "reverse_long timestamps must be >= 0".into(),
                        });
                    }
                    (i64::MAX - ts) as u64
                }
            };
            out.extend_from_slice(&bits.to_be_bytes());
        }
        FieldType::Enum(codes) => match need()? {
            Value::Str(s) => match codes.code(s) {
                Some(c) => out.extend_from_slice(c),
                None => {
                    return Err(KeyError::OutOfRange {
                        field: field.name.clone(),
                        reason: format!("unknown enum name `{s}`"),
                    })
                }
            },
            other => return Err(mismatch(field, "string (enum name)", other)),
        },
        FieldType::Cyclic { unit, cycle } => {
            let text = cyclic_text(field, need()?, unit.per_second(), *cycle)?;
            out.extend_from_slice(text.as_bytes());
        }
    }
    if field.order == Order::Desc {
        for b in &mut out[start..] {
            *b = !*b;
        }
        if field.ty.width() == Some(Width::Rest) {
            // Phoenix's trailing separator of a descending variable-length last column.
            out.push(0xFF);
        }
    }
    Ok(())
}

fn take<'a>(field: &Field, input: &'a [u8], pos: &mut usize, n: usize) -> Result<&'a [u8], KeyError> {
    let end = pos.checked_add(n).filter(|e| *e <= input.len());
    match end {
        Some(e) => {
            let s = &input[*pos..e];
            *pos = e;
            Ok(s)
        }
        None => Err(KeyError::Truncated { field: field.name.clone() }),
    }
}

/// Reads `n` bytes, un-complemented for descending fields.
fn take_asc<'a>(field: &Field, input: &'a [u8], pos: &mut usize, n: usize) -> Result<Cow<'a, [u8]>, KeyError> {
    let s = take(field, input, pos, n)?;
    Ok(if field.order == Order::Desc { Cow::Owned(s.iter().map(|b| !b).collect()) } else { Cow::Borrowed(s) })
}

fn be_u64(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

fn get_width(field: &Field, input: &[u8], pos: &mut usize, width: Width) -> Result<Vec<u8>, KeyError> {
    let flip = if field.order == Order::Desc { 0xFF } else { 0x00 };
    match width {
        Width::Rest => {
            let rest = input.get(*pos..).unwrap_or_default();
            *pos = input.len();
            if flip == 0 {
                return Ok(rest.to_vec());
            }
            match rest.split_last() {
                Some((0xFF, body)) => Ok(body.iter().map(|b| !b).collect()),
                _ => Err(invalid(field, "descending value to the end of the key must end with 0xFF")),
            }
        }
        Width::Fixed { len, pad } => {
            let raw = take_asc(field, input, pos, len)?;
            Ok(match pad {
                Pad::Left(p) => raw.iter().skip_while(|b| **b == p).copied().collect(),
                Pad::Right(p) => {
                    let end = raw.iter().rposition(|b| *b != p).map_or(0, |i| i + 1);
                    raw[..end].to_vec()
                }
            })
        }
        Width::Variable => {
            // Copy the runs between escapes at once: `00` (after un-complementing) is
            // followed by `FF` (an escaped zero) or `01` (the end).
            let mut out = Vec::new();
            loop {
                let rest = input.get(*pos..).unwrap_or_default();
                let Some(i) = rest.iter().position(|b| *b == flip) else {
                    return Err(KeyError::Truncated { field: field.name.clone() });
                };
                if flip == 0 {
                    out.extend_from_slice(&rest[..i]);
                } else {
                    out.extend(rest[..i].iter().map(|b| !b));
                }
                let Some(&next) = rest.get(i + 1) else {
                    return Err(KeyError::Truncated { field: field.name.clone() });
                };
                *pos += i + 2;
                match next ^ flip {
                    0xFF => out.push(0),
                    0x01 => return Ok(out),
                    other => {
                        return Err(invalid(field, format!("bad escape 0x00 0x{other:02X}")));
                    }
                }
            }
        }
        Width::Delimited(d) => {
            let rest = input.get(*pos..).unwrap_or_default();
            let Some(i) = rest.iter().position(|b| b ^ flip == d) else {
                return Err(KeyError::Truncated { field: field.name.clone() });
            };
            *pos += i + 1;
            Ok(rest[..i].iter().map(|b| b ^ flip).collect())
        }
    }
}

fn utf8(field: &Field, raw: Vec<u8>) -> Result<String, KeyError> {
    String::from_utf8(raw).map_err(|_| invalid(field, "not UTF-8"))
}

/// Decodes one field at `*pos`, advancing it. Literals yield `None`.
pub(crate) fn decode_field(field: &Field, input: &[u8], pos: &mut usize) -> Result<Option<Value>, KeyError> {
    let v = match &field.ty {
        FieldType::Literal(lit) => {
            let got = take(field, input, pos, lit.len())?;
            if got != lit.as_slice() {
                return Err(invalid(field, "separator does not match"));
            }
            return Ok(None);
        }
        FieldType::U8 => Value::UInt(be_u64(&take_asc(field, input, pos, 1)?)),
        FieldType::U16 => Value::UInt(be_u64(&take_asc(field, input, pos, 2)?)),
        FieldType::U32 => Value::UInt(be_u64(&take_asc(field, input, pos, 4)?)),
        FieldType::U64 => Value::UInt(be_u64(&take_asc(field, input, pos, 8)?)),
        FieldType::I8 | FieldType::I16 | FieldType::I32 | FieldType::I64 => {
            let w = field.ty.fixed_width().unwrap_or(8);
            let u = be_u64(&take_asc(field, input, pos, w)?);
            let bits = (w * 8) as u32;
            let x = u ^ (1u64 << (bits - 1));
            // sign-extend from `bits`
            let shift = 64 - bits;
            Value::Int(((x << shift) as i64) >> shift)
        }
        FieldType::F32 => {
            let u = be_u64(&take_asc(field, input, pos, 4)?) as u32;
            Value::F32(f32_from_bits(u))
        }
        FieldType::F64 => Value::F64(f64_from_bits(be_u64(&take_asc(field, input, pos, 8)?))),
        FieldType::PhoenixFloat => {
            let u = be_u64(&take_asc(field, input, pos, 4)?) as u32;
            Value::F32(phoenix_f32_from_bits(u))
        }
        FieldType::PhoenixDouble => Value::F64(phoenix_f64_from_bits(be_u64(&take_asc(field, input, pos, 8)?))),
        FieldType::Bool => match take_asc(field, input, pos, 1)?.first() {
            Some(0) => Value::Bool(false),
            Some(1) => Value::Bool(true),
            _ => return Err(invalid(field, "bool byte must be 0x00 or 0x01")),
        },
        FieldType::Bytes(w) => Value::Bytes(get_width(field, input, pos, *w)?),
        FieldType::Str(w) => Value::Str(utf8(field, get_width(field, input, pos, *w)?)?),
        FieldType::ReversedStr(w) => {
            let s = utf8(field, get_width(field, input, pos, *w)?)?;
            Value::Str(s.chars().rev().collect())
        }
        FieldType::Decimal { digits } => {
            let raw = take_asc(field, input, pos, usize::from(*digits))?;
            if !raw.iter().all(u8::is_ascii_digit) {
                return Err(invalid(field, "not a decimal digit string"));
            }
            let s = std::str::from_utf8(&raw).map_err(|_| invalid(field, "not ASCII"))?;
            Value::UInt(s.parse().map_err(|_| invalid(field, "decimal overflows u64"))?)
        }
        FieldType::Timestamp { format, .. } => {
            let u = be_u64(&take_asc(field, input, pos, 8)?);
            match format {
                TsFormat::Binary => Value::Timestamp((u ^ SIGN64) as i64),
                TsFormat::ReverseLong => {
                    let n = u as i64;
                    if n < 0 {
                        return Err(invalid(field, "reverse_long value is negative"));
                    }
                    Value::Timestamp(i64::MAX - n)
                }
            }
        }
        FieldType::Enum(codes) => {
            let raw = take_asc(field, input, pos, codes.width())?;
            match codes.name(&raw) {
                Some(n) => Value::Str(n.to_owned()),
                None => return Err(invalid(field, "unknown enum code")),
            }
        }
        FieldType::Cyclic { cycle, .. } => {
            let raw = take_asc(field, input, pos, cycle.width())?;
            Value::Str(utf8(field, raw.into_owned())?)
        }
    };
    Ok(Some(v))
}

/// Text form of a value, used by salts (`String.hashCode`, md5 of text, digit parts).
///
/// Strings as given, decimal fields zero-padded to their digit count, integers and
/// timestamps in decimal, bytes raw, enums by name, bools `true`/`false`.
pub(crate) fn text_bytes(field: &Field, v: &Value) -> Vec<u8> {
    match (&field.ty, v) {
        (FieldType::Decimal { digits }, Value::UInt(n)) => {
            let mut out = Vec::with_capacity(usize::from(*digits).max(20));
            crate::digits::push_decimal(&mut out, *n, usize::from(*digits));
            out
        }
        (_, Value::UInt(n)) => {
            let mut out = Vec::with_capacity(20);
            crate::digits::push_decimal(&mut out, *n, 0);
            out
        }
        (_, Value::Int(n)) | (_, Value::Timestamp(n)) => {
            let mut out = Vec::with_capacity(20);
            crate::digits::push_signed(&mut out, *n);
            out
        }
        (_, Value::F32(x)) => x.to_string().into_bytes(),
        (_, Value::F64(x)) => x.to_string().into_bytes(),
        (_, Value::Bool(b)) => b.to_string().into_bytes(),
        (_, Value::Bytes(b)) => b.clone(),
        (_, Value::Str(s)) => s.as_bytes().to_vec(),
    }
}
