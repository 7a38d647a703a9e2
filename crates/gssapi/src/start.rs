//! Starting a client context the way every Kerberos client of Basalt does: the
//! credentials are looked up and checked first, so that a missing or expired ticket is
//! told apart from the other failures ([`StartError`]).

use crate::{ClientContext, Credential, Error, Flags, Name, NameType};

/// Why [`ClientContext::for_service`] could not start a context.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// No credentials for the principal: no ticket cache, no ticket for it, or no
    /// keytab entry.
    #[error("no credentials for {principal}: {source}")]
    NoCredentials {
        /// The principal looked for (`the default principal` when none was named).
        principal: String,
        /// The library's failure.
        source: Error,
    },
    /// The credentials have expired (or have no lifetime left).
    #[error("the credentials of {principal} have expired: {source}")]
    Expired {
        /// Whose credentials.
        principal: String,
        /// The library's failure.
        source: Error,
    },
    /// Another failure: the library is missing, a name is not valid, ...
    #[error("{0}")]
    Other(Error),
}

impl ClientContext {
    /// A context for the host-based service `target` (`service@host`) with the
    /// credentials of `principal` (`user@REALM`; default: the ticket cache's principal),
    /// asking for `flags`. The credentials are acquired and their lifetime checked
    /// first. Blocking: it may read files.
    pub fn for_service(principal: Option<&str>, target: &str, flags: Flags) -> Result<ClientContext, StartError> {
        let who = match principal {
            Some(p) => Some(Name::new(p, NameType::KerberosPrincipal).map_err(StartError::Other)?),
            None => None,
        };
        let shown = || principal.unwrap_or("the default principal").to_owned();
        let credential = Credential::acquire(who.as_ref()).map_err(|source| {
            if source.is_library_missing() {
                StartError::Other(source)
            } else if source.is_credentials_expired() {
                StartError::Expired { principal: shown(), source }
            } else {
                StartError::NoCredentials { principal: shown(), source }
            }
        })?;
        match credential.lifetime() {
            Ok(left) if left.is_zero() => {
                let source = Error::Protection("the credentials have no lifetime left".into());
                return Err(StartError::Expired { principal: shown(), source });
            }
            Err(source) if source.is_credentials_expired() => {
                return Err(StartError::Expired { principal: shown(), source })
            }
            Ok(_) | Err(_) => {}
        }
        let name = Name::new(target, NameType::HostBasedService).map_err(StartError::Other)?;
        Ok(ClientContext::new(credential, name, flags))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Loads the real library, like the crate's other tests.
    #[test]
    fn a_principal_without_credentials_is_told_apart() {
        if let Err(e) = crate::load() {
            panic!("{e}");
        }
        let flags = Flags::MUTUAL;
        let Err(err) = ClientContext::for_service(Some("nobody@NO.SUCH.REALM.BASALT"), "hbase@localhost", flags) else {
            panic!("credentials for a principal of no realm")
        };
        assert!(
            matches!(&err, StartError::NoCredentials { principal, .. } if principal == "nobody@NO.SUCH.REALM.BASALT"),
            "{err:?}"
        );
    }
}
