//! Checking a salt's definition against the schema's fields (names resolved, bucket
//! counts within what the rendering and the presets' Java can hold).

use super::{decimal_digits, java_int_text_len, Part, Salt, SaltInput, SaltRendering, SaltStrategy, MAX_BUCKETS};
use crate::error::SchemaError;
use crate::field::{Field, FieldType};
use crate::hash::JavaBucketForm;

impl Salt {
    /// Resolves field names and checks the definition against the fields.
    pub(crate) fn resolve(&mut self, fields: &[Field]) -> Result<(), SchemaError> {
        let n = self.base_buckets();
        let bad = |s: String| Err(SchemaError::InvalidSalt(s));
        if n == 0 {
            return bad("bucket count must be > 0".into());
        }
        if let (SaltStrategy::XorJavaHash { .. }, SaltRendering::Decimal(w)) = (&self.strategy, self.rendering) {
            let last = n - 1;
            if decimal_digits(u64::from(last)) > w && w == java_int_text_len(i64::from(n) - 2) {
                return bad(format!(
                    "the call-record salt with {n} regions pads the salt to the digits of {n} - 2 ({w}), so its last \
                     salt is written `{last}_`, one digit wider: that sorts between `1_` and `2_`, its \
                     split keys put it in the region of salt 1 and leave the last region empty; use {} or {} \
                     regions",
                    n - 1,
                    n + 1
                ));
            }
        }
        let capacity = match self.strategy {
            SaltStrategy::Socorro { .. } => u64::from(n),
            _ => self.rendering.capacity(),
        };
        if u64::from(n) > capacity || self.rendering.width() == 0 {
            return bad(format!(
                "rendering {:?} cannot hold {n} buckets: it writes at most {capacity} distinct prefixes; \
                 widen the rendering (`width`) or use fewer buckets",
                self.rendering
            ));
        }
        match &self.strategy {
            SaltStrategy::Md5Hex { chars, .. } if *chars == 0 || *chars > 5 => {
                return bad(format!(
                    "md5 hex prefix must be 1..=5 characters ({chars} given: 16^chars buckets, at most 2^20)"
                ))
            }
            SaltStrategy::RoundRobin { buckets } if *buckets > 127 => {
                return bad(format!(
                    "HBaseWD's one-byte prefix takes its count as a Java byte, so at most 127 buckets \
                     ({buckets} given); use 127 or fewer, or a hash prefix for more"
                ))
            }
            SaltStrategy::JavaHash { buckets, .. } | SaltStrategy::XorJavaHash { buckets, .. }
                if i32::try_from(*buckets).is_err() =>
            {
                return bad("a Java bucket count is an int: use at most 2147483647 buckets".into())
            }
            _ => {}
        }
        if self.buckets() > MAX_BUCKETS {
            return bad(format!(
                "{} buckets is over the limit of {MAX_BUCKETS}: a plan, a salted scan and the split keys \
                 hold one entry per bucket",
                self.buckets()
            ));
        }
        if matches!(self.rendering, SaltRendering::Bytes(w) if w > 8) {
            return bad("byte rendering is at most 8 bytes".into());
        }
        for input in self.inputs_mut() {
            let Some(i) = fields.iter().position(|f| f.name == input.field) else {
                return Err(SchemaError::UnknownField(input.field.clone()));
            };
            if fields[i].ty.is_literal() {
                return bad(format!("`{}` is a literal", input.field));
            }
            if matches!(fields[i].ty, FieldType::Cyclic { .. }) {
                return bad(format!(
                    "`{}` is cyclic: it decodes lossily, so the salt could not be checked",
                    input.field
                ));
            }
            if let Part::Calendar(_) = input.part {
                if !matches!(fields[i].ty, FieldType::Timestamp { .. }) {
                    return bad(format!("calendar part needs a timestamp field: `{}`", input.field));
                }
            }
            input.index = i;
        }
        if let SaltStrategy::Socorro { id, date } = &mut self.strategy {
            if date.is_none() {
                // The value field right before the id, if it is 6 wide, is Socorro's date part.
                let before = fields[..id.index].iter().rev().find(|f| !f.ty.is_literal());
                if let Some(f) = before.filter(|f| f.ty.fixed_width() == Some(6)) {
                    let index = fields.iter().position(|x| x.name == f.name).unwrap_or(usize::MAX);
                    *date = Some(SaltInput { field: f.name.clone(), part: Part::Text, index });
                }
            }
        }
        let mut negatives = Vec::new();
        if let SaltRendering::Bytes(w) = self.rendering {
            let modulus = 1i128 << (8 * u32::from(w.min(8)));
            for j in self.negative_results() {
                if i128::from(j).rem_euclid(modulus) >= i128::from(n) && !negatives.contains(&j) {
                    negatives.push(j);
                }
            }
        }
        self.negatives = negatives;
        Ok(())
    }

    /// Negative Java results the strategy can produce.
    fn negative_results(&self) -> Vec<i32> {
        match &self.strategy {
            SaltStrategy::JavaHash { form, buckets, .. } => form.negative_results(*buckets),
            SaltStrategy::XorJavaHash { buckets, .. } => JavaBucketForm::AbsThenRem.negative_results(*buckets),
            _ => Vec::new(),
        }
    }
}
