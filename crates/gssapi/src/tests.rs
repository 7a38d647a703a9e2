//! These tests load the real library: on a machine without it they fail, saying which
//! package to install (as Kerberos itself would).

use super::*;
use crate::library::{api, load_first};

fn loaded() -> &'static str {
    match load() {
        Ok(library) => library,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn the_system_library_loads_with_every_entry_point() {
    let library = loaded();
    assert!(library.contains("gssapi"), "{library}");
}

#[test]
fn a_missing_library_names_the_package_to_install() {
    let Err(err) = load_first(&["libbasalt-no-such-gssapi.so.9".to_owned()]) else {
        panic!("a library that does not exist was loaded")
    };
    assert!(err.is_library_missing());
    let text = err.to_string();
    assert!(text.contains(DEBIAN_PACKAGE) && text.contains("libbasalt-no-such-gssapi.so.9"), "{text}");
}

#[test]
fn a_library_without_gssapi_is_refused() {
    let Err(err) = load_first(&["libc.so.6".to_owned()]) else { panic!("libc was taken for a GSSAPI library") };
    assert!(matches!(err, Error::LibraryUnusable { ref detail, .. } if detail.contains("gss_import_name")), "{err}");
}

#[test]
fn names_of_both_kinds_import() {
    loaded();
    let service = Name::new("hbase@gateway.example.com", NameType::HostBasedService).unwrap();
    assert_eq!(service.text(), "hbase@gateway.example.com");
    Name::new("basalt@BASALT.TEST", NameType::KerberosPrincipal).unwrap();
}

#[test]
fn status_codes_read_as_the_librarys_words() {
    let api = api().unwrap();
    let text = api.describe(NO_CRED, 0);
    assert!(text.to_lowercase().contains("credentials"), "{text}");
    let text = api.describe(CREDENTIALS_EXPIRED, 0);
    assert!(text.to_lowercase().contains("expired"), "{text}");
}

#[test]
fn no_ticket_for_an_unknown_principal_is_an_error_in_words() {
    loaded();
    let who = Name::new("basalt-nobody@NO-SUCH-REALM.INVALID", NameType::KerberosPrincipal).unwrap();
    let Err(err) = Credential::acquire(Some(&who)) else { panic!("credentials for a principal nobody has") };
    let Error::Gss { call, major, ref message, .. } = err.clone() else { panic!("{err:?}") };
    assert_eq!(call, "gss_acquire_cred");
    assert_ne!(major, 0);
    assert!(!message.is_empty() && !message.starts_with("major status"), "{message}");
    assert!(err.is_no_credentials(), "{err}");
}

#[test]
fn flags_combine_as_the_c_bits() {
    assert_eq!((Flags::MUTUAL | Flags::SEQUENCE | Flags::INTEG | Flags::CONF).bits(), 2 | 8 | 32 | 16);
}
