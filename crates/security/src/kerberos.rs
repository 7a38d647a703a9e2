//! Kerberos settings of a connection and the qualities of protection, present in every
//! build (with or without the cargo feature `kerberos`), so that code that sets them
//! compiles the same either way.

use std::fmt;

/// Whether this build can speak Kerberos (the cargo feature `kerberos`). Without it,
/// starting a Kerberos exchange fails with
/// [`SecurityError::KerberosNotBuilt`](crate::SecurityError::KerberosNotBuilt).
pub const KERBEROS_SUPPORTED: bool = cfg!(feature = "kerberos");

/// Quality of protection of a Kerberos connection: the SASL security layer HBase calls
/// `authentication`, `integrity` or `privacy` (`hbase.rpc.protection`,
/// `hbase.thrift.security.qop`). Ordered from weakest to strongest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Qop {
    /// Authentication only: messages travel as they are.
    #[default]
    Auth,
    /// Authentication and integrity: every message is signed.
    AuthInt,
    /// Authentication, integrity and confidentiality: every message is encrypted.
    AuthConf,
}

impl Qop {
    /// Every layer, weakest first.
    pub const ALL: [Qop; 3] = [Qop::Auth, Qop::AuthInt, Qop::AuthConf];

    /// The SASL name: `auth`, `auth-int`, `auth-conf`.
    pub fn as_str(self) -> &'static str {
        match self {
            Qop::Auth => "auth",
            Qop::AuthInt => "auth-int",
            Qop::AuthConf => "auth-conf",
        }
    }

    /// The layer's bit in an RFC 4752 security-layer offer or choice.
    pub fn layer_bit(self) -> u8 {
        match self {
            Qop::Auth => 1,
            Qop::AuthInt => 2,
            Qop::AuthConf => 4,
        }
    }

    /// The layers of an RFC 4752 bit mask, by name (`nothing` when none).
    ///
    /// ```
    /// assert_eq!(basalt_security::Qop::describe_mask(6), "auth-int, auth-conf");
    /// ```
    pub fn describe_mask(mask: u8) -> String {
        let names: Vec<&str> = Qop::ALL.into_iter().filter(|q| mask & q.layer_bit() != 0).map(Qop::as_str).collect();
        if names.is_empty() {
            "nothing".into()
        } else {
            names.join(", ")
        }
    }
}

impl fmt::Display for Qop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Qop {
    type Err = String;

    /// Parses a SASL name (`auth`, `auth-int`, `auth-conf`) or HBase's
    /// (`authentication`, `integrity`, `privacy`).
    fn from_str(s: &str) -> Result<Qop, String> {
        match s {
            "auth" | "authentication" => Ok(Qop::Auth),
            "auth-int" | "integrity" => Ok(Qop::AuthInt),
            "auth-conf" | "privacy" => Ok(Qop::AuthConf),
            other => Err(format!("unknown quality of protection '{other}': use auth, auth-int or auth-conf")),
        }
    }
}

/// Which qualities of protection a client accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QopChoice {
    /// The strongest layer the server offers at or above this one (the default, with
    /// [`Qop::Auth`]: whatever the server offers, strongest first).
    AtLeast(Qop),
    /// Exactly this layer; a server that does not offer it is refused.
    Exactly(Qop),
}

impl Default for QopChoice {
    fn default() -> Self {
        QopChoice::AtLeast(Qop::Auth)
    }
}

impl QopChoice {
    /// The weakest layer accepted.
    pub fn weakest(self) -> Qop {
        match self {
            QopChoice::AtLeast(q) | QopChoice::Exactly(q) => q,
        }
    }

    /// The layer chosen from the server's offer (an RFC 4752 bit mask), if one fits.
    ///
    /// ```
    /// use basalt_security::{Qop, QopChoice};
    /// assert_eq!(QopChoice::AtLeast(Qop::AuthInt).choose(0b111), Some(Qop::AuthConf));
    /// assert_eq!(QopChoice::Exactly(Qop::AuthInt).choose(0b111), Some(Qop::AuthInt));
    /// assert_eq!(QopChoice::AtLeast(Qop::AuthInt).choose(0b001), None);
    /// ```
    pub fn choose(self, offered: u8) -> Option<Qop> {
        let offers = |q: Qop| offered & q.layer_bit() != 0;
        match self {
            QopChoice::Exactly(q) => offers(q).then_some(q),
            QopChoice::AtLeast(min) => Qop::ALL.into_iter().rev().find(|q| *q >= min && offers(*q)),
        }
    }

    /// How the choice reads: `at least auth-int`, `exactly auth`.
    pub fn describe(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for QopChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QopChoice::AtLeast(q) => write!(f, "at least {q}"),
            QopChoice::Exactly(q) => write!(f, "exactly {q}"),
        }
    }
}

/// Kerberos settings of a connection: SASL GSSAPI on a socket, SPNEGO over HTTP.
///
/// ```
/// use basalt_security::{KerberosOptions, Qop, QopChoice};
/// let krb = KerberosOptions { qop: Qop::AuthInt, ..KerberosOptions::default() };
/// assert_eq!(krb.choice(), QopChoice::AtLeast(Qop::AuthInt));
/// assert_eq!(krb.target("rs1.example.com"), "hbase@rs1.example.com");
/// let exact = KerberosOptions::default().accepting(QopChoice::Exactly(Qop::Auth));
/// assert_eq!(exact.choice(), QopChoice::Exactly(Qop::Auth));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KerberosOptions {
    /// The weakest quality of protection accepted; the strongest the server offers at
    /// or above it is used (unless [`exact_qop`](Self::exact_qop)). Default: auth.
    pub qop: Qop,
    /// Accept `qop` only, not a stronger layer (to test or measure one layer against a
    /// server that offers several). Default: false.
    pub exact_qop: bool,
    /// Service part of the server principal (`hbase/HOST@REALM`). Default: `hbase`
    /// (HBase's HTTP servers use `HTTP`).
    pub service: String,
    /// Host part of the server principal; default: the host of each server's address
    /// (HBase's `_HOST`). Set it when every server uses one principal.
    pub server_host: Option<String>,
    /// Client principal whose credentials to use; default: the ticket cache's principal
    /// (`KRB5CCNAME`), or with MIT krb5 a client keytab (`KRB5_CLIENT_KTNAME`).
    pub principal: Option<String>,
}

impl Default for KerberosOptions {
    fn default() -> Self {
        KerberosOptions {
            qop: Qop::Auth,
            exact_qop: false,
            service: "hbase".to_owned(),
            server_host: None,
            principal: None,
        }
    }
}

impl KerberosOptions {
    /// Which layers are accepted, from [`qop`](Self::qop) and
    /// [`exact_qop`](Self::exact_qop).
    pub fn choice(&self) -> QopChoice {
        if self.exact_qop {
            QopChoice::Exactly(self.qop)
        } else {
            QopChoice::AtLeast(self.qop)
        }
    }

    /// These options accepting the layers of `choice`.
    pub fn accepting(mut self, choice: QopChoice) -> KerberosOptions {
        self.qop = choice.weakest();
        self.exact_qop = matches!(choice, QopChoice::Exactly(_));
        self
    }

    /// The GSSAPI host-based service name `service@host` for a server at `host`.
    pub fn target(&self, host: &str) -> String {
        format!("{}@{}", self.service, self.server_host.as_deref().unwrap_or(host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qop_names_order_and_masks() {
        assert_eq!("auth-conf".parse::<Qop>(), Ok(Qop::AuthConf));
        assert_eq!("integrity".parse::<Qop>(), Ok(Qop::AuthInt));
        assert_eq!("authentication".parse::<Qop>(), Ok(Qop::Auth));
        assert!("none".parse::<Qop>().unwrap_err().contains("'none'"));
        assert!(Qop::AuthConf > Qop::AuthInt && Qop::AuthInt > Qop::Auth);
        assert_eq!(Qop::describe_mask(7), "auth, auth-int, auth-conf");
        assert_eq!(Qop::describe_mask(4), "auth-conf");
        assert_eq!(Qop::describe_mask(0), "nothing");
    }

    #[test]
    fn the_choice_takes_the_strongest_fitting_layer() {
        assert_eq!(QopChoice::default().choose(7), Some(Qop::AuthConf));
        assert_eq!(QopChoice::default().choose(1), Some(Qop::Auth));
        assert_eq!(QopChoice::AtLeast(Qop::AuthInt).choose(3), Some(Qop::AuthInt));
        assert_eq!(QopChoice::AtLeast(Qop::AuthInt).choose(1), None);
        assert_eq!(QopChoice::Exactly(Qop::Auth).choose(7), Some(Qop::Auth));
        assert_eq!(QopChoice::Exactly(Qop::AuthConf).choose(3), None);
        assert_eq!(QopChoice::default().choose(0), None);
        assert_eq!(QopChoice::Exactly(Qop::AuthInt).describe(), "exactly auth-int");
    }

    #[test]
    fn options_name_the_target_and_round_trip_a_choice() {
        let options = KerberosOptions::default();
        assert_eq!(options.choice(), QopChoice::AtLeast(Qop::Auth));
        assert_eq!(options.target("gw.example.com"), "hbase@gw.example.com");
        let options = KerberosOptions { server_host: Some("h".into()), service: "HTTP".into(), ..options };
        assert_eq!(options.target("ignored"), "HTTP@h");
        for choice in Qop::ALL.into_iter().flat_map(|q| [QopChoice::AtLeast(q), QopChoice::Exactly(q)]) {
            assert_eq!(KerberosOptions::default().accepting(choice).choice(), choice);
        }
    }
}
