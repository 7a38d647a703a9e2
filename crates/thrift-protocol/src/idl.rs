//! A small reader of Thrift IDL files, enough to compare Basalt's declaration of
//! THBaseService (`thrift-idl/hbase.thrift`) with the one shipped in HBase's
//! `hbase-thrift` jar: every struct, enum and method we declare must have the same
//! field ids, types and requiredness upstream.

use std::collections::BTreeMap;

/// One field of a struct, or one argument or exception of a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field id.
    pub id: i32,
    /// The field name.
    pub name: String,
    /// The type, normalised (`byte` is written `i8`, no spaces).
    pub ty: String,
    /// `required`, `optional` or `default`.
    pub requiredness: String,
}

/// A service method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    /// The return type, normalised.
    pub returns: String,
    /// The arguments, by id.
    pub args: Vec<Field>,
    /// The declared exceptions, by id.
    pub throws: Vec<Field>,
}

/// Everything declared in one IDL file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Idl {
    /// Structs, unions and exceptions by name.
    pub structs: BTreeMap<String, Vec<Field>>,
    /// Enums by name: value names and numbers.
    pub enums: BTreeMap<String, BTreeMap<String, i64>>,
    /// Methods of every service, by name.
    pub methods: BTreeMap<String, Method>,
}

/// Why an IDL text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("IDL parse error near token {at}: {what}")]
pub struct IdlError {
    /// Index of the token where reading failed.
    pub at: usize,
    /// What was expected.
    pub what: String,
}

fn tokenize(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '#' || (c == '/' && chars.get(i + 1) == Some(&'/')) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' || c == '\'' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            i += 1;
            tokens.push(chars[start..i.min(chars.len())].iter().collect());
        } else if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.' || chars[i] == '-')
            {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

struct Parser {
    tokens: Vec<String>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }

    fn next(&mut self) -> Result<String, IdlError> {
        let token = self.tokens.get(self.pos).cloned().ok_or_else(|| self.error("more input"))?;
        self.pos += 1;
        Ok(token)
    }

    fn error(&self, what: &str) -> IdlError {
        IdlError { at: self.pos, what: what.to_owned() }
    }

    fn expect(&mut self, want: &str) -> Result<(), IdlError> {
        let got = self.next()?;
        if got == want {
            Ok(())
        } else {
            Err(self.error(&format!("`{want}`, found `{got}`")))
        }
    }

    fn eat(&mut self, want: &str) -> bool {
        if self.peek() == Some(want) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_separator(&mut self) {
        while self.eat(",") || self.eat(";") {}
    }

    fn ty(&mut self) -> Result<String, IdlError> {
        let name = self.next()?;
        match name.as_str() {
            "list" | "set" => {
                self.expect("<")?;
                let inner = self.ty()?;
                self.expect(">")?;
                Ok(format!("{name}<{inner}>"))
            }
            "map" => {
                self.expect("<")?;
                let key = self.ty()?;
                self.expect(",")?;
                let value = self.ty()?;
                self.expect(">")?;
                Ok(format!("map<{key},{value}>"))
            }
            "byte" => Ok("i8".to_owned()),
            _ => Ok(name),
        }
    }

    /// Fields up to (and including) `close`.
    fn fields(&mut self, close: &str) -> Result<Vec<Field>, IdlError> {
        let mut fields = Vec::new();
        loop {
            self.skip_separator();
            if self.eat(close) {
                return Ok(fields);
            }
            let id_token = self.next()?;
            let id = id_token.parse::<i32>().map_err(|_| self.error("a field id"))?;
            self.expect(":")?;
            let requiredness = match self.peek() {
                Some("required") | Some("optional") => self.next()?,
                _ => "default".to_owned(),
            };
            let ty = self.ty()?;
            let name = self.next()?;
            if self.eat("=") {
                // A default value: one token (number, constant, string).
                self.next()?;
            }
            fields.push(Field { id, name, ty, requiredness });
        }
    }

    fn enum_body(&mut self) -> Result<BTreeMap<String, i64>, IdlError> {
        self.expect("{")?;
        let mut values = BTreeMap::new();
        let mut next_value = 0i64;
        loop {
            self.skip_separator();
            if self.eat("}") {
                return Ok(values);
            }
            let name = self.next()?;
            if self.eat("=") {
                next_value = self.next()?.parse().map_err(|_| self.error("an enum value"))?;
            }
            values.insert(name, next_value);
            next_value += 1;
        }
    }

    fn service_body(&mut self, methods: &mut BTreeMap<String, Method>) -> Result<(), IdlError> {
        self.expect("{")?;
        loop {
            self.skip_separator();
            if self.eat("}") {
                return Ok(());
            }
            self.eat("oneway");
            let returns = self.ty()?;
            let name = self.next()?;
            self.expect("(")?;
            let args = self.fields(")")?;
            let throws = if self.eat("throws") {
                self.expect("(")?;
                self.fields(")")?
            } else {
                Vec::new()
            };
            methods.insert(name, Method { returns, args, throws });
        }
    }
}

/// Reads an IDL text.
pub fn parse(text: &str) -> Result<Idl, IdlError> {
    let mut p = Parser { tokens: tokenize(text), pos: 0 };
    let mut idl = Idl::default();
    while let Some(keyword) = p.peek().map(str::to_owned) {
        p.pos += 1;
        match keyword.as_str() {
            "namespace" => {
                p.next()?;
                p.next()?;
            }
            "include" | "cpp_include" => {
                p.next()?;
            }
            "struct" | "union" | "exception" => {
                let name = p.next()?;
                p.expect("{")?;
                let fields = p.fields("}")?;
                idl.structs.insert(name, fields);
            }
            "enum" => {
                let name = p.next()?;
                let values = p.enum_body()?;
                idl.enums.insert(name, values);
            }
            "service" => {
                p.next()?;
                if p.eat("extends") {
                    p.next()?;
                }
                p.service_body(&mut idl.methods)?;
            }
            "typedef" => {
                p.ty()?;
                p.next()?;
            }
            "const" => {
                p.ty()?;
                p.next()?;
                p.expect("=")?;
                p.next()?;
            }
            ";" | "," => {}
            other => return Err(p.error(&format!("a definition, found `{other}`"))),
        }
    }
    Ok(idl)
}

/// Every way in which `ours` disagrees with `upstream`, for the items `ours` declares.
/// Requiredness of method arguments is not compared (Thrift ignores it there).
pub fn differences(ours: &Idl, upstream: &Idl) -> Vec<String> {
    let mut out = Vec::new();
    for (name, fields) in &ours.structs {
        match upstream.structs.get(name) {
            None => out.push(format!("struct {name} does not exist upstream")),
            Some(theirs) => compare_fields(&format!("struct {name}"), fields, theirs, true, &mut out),
        }
    }
    for (name, values) in &ours.enums {
        match upstream.enums.get(name) {
            None => out.push(format!("enum {name} does not exist upstream")),
            Some(theirs) if theirs != values => out.push(format!("enum {name}: ours {values:?}, upstream {theirs:?}")),
            Some(_) => {}
        }
    }
    for (name, method) in &ours.methods {
        match upstream.methods.get(name) {
            None => out.push(format!("method {name} does not exist upstream")),
            Some(theirs) => {
                if method.returns != theirs.returns {
                    out.push(format!("method {name}: returns {} upstream, {} here", theirs.returns, method.returns));
                }
                compare_fields(&format!("method {name} args"), &method.args, &theirs.args, false, &mut out);
                compare_fields(&format!("method {name} throws"), &method.throws, &theirs.throws, false, &mut out);
            }
        }
    }
    out
}

fn compare_fields(what: &str, ours: &[Field], theirs: &[Field], requiredness: bool, out: &mut Vec<String>) {
    for field in ours {
        match theirs.iter().find(|f| f.id == field.id) {
            None => out.push(format!("{what}: field {} ({}) missing upstream", field.id, field.name)),
            Some(t) => {
                if t.ty != field.ty {
                    out.push(format!(
                        "{what}: field {} ({}) is {} upstream, {} here",
                        field.id, field.name, t.ty, field.ty
                    ));
                }
                if requiredness && t.requiredness != field.requiredness {
                    out.push(format!(
                        "{what}: field {} ({}) is {} upstream, {} here",
                        field.id, field.name, t.requiredness, field.requiredness
                    ));
                }
            }
        }
    }
    // Arguments and exceptions must match in full: a missing one changes the call.
    if !requiredness {
        for t in theirs {
            if !ours.iter().any(|f| f.id == t.id) {
                out.push(format!("{what}: upstream field {} ({}) not declared here", t.id, t.name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
        namespace java a.b   // comment
        /** doc */
        struct TColumn { 1: required binary family, 2: optional binary qualifier; 3: optional i64 ts = 5 }
        enum E { A = 1, B, C = 7 }
        exception TIOError { 1: optional string message }
        service S {
          list<TColumn> get(1: required binary table, /* note */ 2: i32 n = 1) throws (1: TIOError io)
          void ping()
          map<string, list<byte>> m()
        }
    "#;

    #[test]
    fn reads_structs_enums_and_methods() {
        let idl = parse(SAMPLE).unwrap();
        let column = &idl.structs["TColumn"];
        assert_eq!(column.len(), 3);
        assert_eq!(column[2], Field { id: 3, name: "ts".into(), ty: "i64".into(), requiredness: "optional".into() });
        assert_eq!(idl.enums["E"]["B"], 2);
        assert_eq!(idl.enums["E"]["C"], 7);
        assert_eq!(idl.methods["get"].returns, "list<TColumn>");
        assert_eq!(idl.methods["get"].args[1].requiredness, "default");
        assert_eq!(idl.methods["get"].throws[0].ty, "TIOError");
        assert_eq!(idl.methods["m"].returns, "map<string,list<i8>>");
    }

    #[test]
    fn reports_each_kind_of_difference() {
        let upstream = parse(SAMPLE).unwrap();
        let ours = parse(
            "struct TColumn { 1: required string family, 2: required binary qualifier, 4: optional i32 x }
             enum E { A = 1 }
             service S { list<TColumn> get(1: required binary table) throws (1: TIOError io) bool nope() }",
        )
        .unwrap();
        let diffs = differences(&ours, &upstream);
        assert_eq!(diffs.len(), 6, "{diffs:#?}");
        assert!(differences(&upstream, &upstream).is_empty());
    }

    #[test]
    fn our_idl_parses() {
        let ours = parse(include_str!("../../../thrift-idl/hbase.thrift")).unwrap();
        assert!(ours.methods.contains_key("getScannerRows"));
        assert_eq!(ours.structs["TScan"].len(), 18);
    }
}
