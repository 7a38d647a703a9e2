//! The C side: the types of RFC 2744's C bindings as MIT krb5 and Heimdal lay them out,
//! and the table of entry points read once from the shared library.

use std::ffi::c_void;
use std::os::raw::c_int;
use std::sync::OnceLock;

use libloading::Library;

use crate::Error;

/// `OM_uint32`.
pub(crate) type OmUint32 = u32;
/// `gss_name_t`, `gss_cred_id_t`, `gss_ctx_id_t`: opaque handles, null when absent.
pub(crate) type Handle = *mut c_void;

/// `gss_buffer_desc`: bytes owned by the caller (input) or by the library (output,
/// released with `gss_release_buffer`).
#[repr(C)]
pub(crate) struct Buffer {
    pub length: usize,
    pub value: *mut c_void,
}

impl Buffer {
    /// An empty buffer for the library to fill.
    pub fn empty() -> Buffer {
        Buffer { length: 0, value: std::ptr::null_mut() }
    }

    /// A view of `bytes` as an input buffer. The library only reads input buffers (the
    /// C prototypes lack `const`), so the pointer's mutability is nominal.
    pub fn input(bytes: &[u8]) -> Buffer {
        Buffer { length: bytes.len(), value: bytes.as_ptr() as *mut c_void }
    }
}

/// `gss_OID_desc`. The headers of MIT and Apple pack it to 2 bytes on Apple's x86.
#[cfg_attr(all(target_vendor = "apple", target_arch = "x86_64"), repr(C, packed(2)))]
#[cfg_attr(not(all(target_vendor = "apple", target_arch = "x86_64")), repr(C))]
pub(crate) struct Oid {
    pub length: OmUint32,
    pub elements: *const u8,
}

/// `gss_OID_set_desc`.
#[repr(C)]
pub(crate) struct OidSet {
    pub count: usize,
    pub elements: *const Oid,
}

/// An OID whose bytes live for the whole program.
pub(crate) struct StaticOid(Oid);

// SAFETY: a StaticOid only points at a `static` byte array that is never written.
#[allow(unsafe_code)]
unsafe impl Sync for StaticOid {}

impl StaticOid {
    const fn new(bytes: &'static [u8]) -> StaticOid {
        StaticOid(Oid { length: bytes.len() as OmUint32, elements: bytes.as_ptr() })
    }

    /// The `gss_OID` to pass; the library reads it and never writes through it.
    pub fn as_ptr(&'static self) -> *mut Oid {
        &self.0 as *const Oid as *mut Oid
    }
}

/// The Kerberos 5 mechanism, 1.2.840.113554.1.2.2.
pub(crate) static MECH_KRB5: StaticOid = StaticOid::new(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02]);
/// `GSS_C_NT_HOSTBASED_SERVICE` (`service@host`), 1.2.840.113554.1.2.1.4.
pub(crate) static NT_HOSTBASED_SERVICE: StaticOid =
    StaticOid::new(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x01, 0x04]);
/// `GSS_KRB5_NT_PRINCIPAL_NAME` (`user@REALM`), 1.2.840.113554.1.2.2.1.
pub(crate) static NT_KRB5_PRINCIPAL: StaticOid =
    StaticOid::new(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x01]);

/// The set {Kerberos 5}, for `gss_acquire_cred`.
pub(crate) struct KrbMechSet(OidSet);
// SAFETY: points only at MECH_KRB5, a static that is never written.
#[allow(unsafe_code)]
unsafe impl Sync for KrbMechSet {}
pub(crate) static KRB5_MECH_SET: KrbMechSet = KrbMechSet(OidSet { count: 1, elements: &MECH_KRB5.0 });

impl KrbMechSet {
    /// The `gss_OID_set` to pass; read only by the library.
    pub fn as_ptr(&'static self) -> *mut OidSet {
        &self.0 as *const OidSet as *mut OidSet
    }
}

/// `GSS_C_INDEFINITE`: no time limit (a requested or reported lifetime).
pub(crate) const INDEFINITE: OmUint32 = 0xffff_ffff;
/// `GSS_C_INITIATE`: credentials to start contexts with.
pub(crate) const INITIATE: c_int = 1;
/// `GSS_C_GSS_CODE` and `GSS_C_MECH_CODE` for `gss_display_status`.
pub(crate) const GSS_CODE: c_int = 1;
pub(crate) const MECH_CODE: c_int = 2;
/// `GSS_S_CONTINUE_NEEDED` (a supplementary bit of the major status).
pub(crate) const CONTINUE_NEEDED: OmUint32 = 1;

type ImportName = unsafe extern "C" fn(*mut OmUint32, *mut Buffer, *mut Oid, *mut Handle) -> OmUint32;
type ReleaseHandle = unsafe extern "C" fn(*mut OmUint32, *mut Handle) -> OmUint32;
type AcquireCred = unsafe extern "C" fn(
    *mut OmUint32,
    Handle,
    OmUint32,
    *mut OidSet,
    c_int,
    *mut Handle,
    *mut *mut OidSet,
    *mut OmUint32,
) -> OmUint32;
type InquireCred =
    unsafe extern "C" fn(*mut OmUint32, Handle, *mut Handle, *mut OmUint32, *mut c_int, *mut *mut OidSet) -> OmUint32;
type InitSecContext = unsafe extern "C" fn(
    *mut OmUint32,
    Handle,
    *mut Handle,
    Handle,
    *mut Oid,
    OmUint32,
    OmUint32,
    *mut c_void,
    *mut Buffer,
    *mut *mut Oid,
    *mut Buffer,
    *mut OmUint32,
    *mut OmUint32,
) -> OmUint32;
type DeleteSecContext = unsafe extern "C" fn(*mut OmUint32, *mut Handle, *mut Buffer) -> OmUint32;
type Wrap =
    unsafe extern "C" fn(*mut OmUint32, Handle, c_int, OmUint32, *mut Buffer, *mut c_int, *mut Buffer) -> OmUint32;
type Unwrap =
    unsafe extern "C" fn(*mut OmUint32, Handle, *mut Buffer, *mut Buffer, *mut c_int, *mut OmUint32) -> OmUint32;
type ReleaseBuffer = unsafe extern "C" fn(*mut OmUint32, *mut Buffer) -> OmUint32;
type DisplayStatus =
    unsafe extern "C" fn(*mut OmUint32, OmUint32, c_int, *mut Oid, *mut OmUint32, *mut Buffer) -> OmUint32;

/// The entry points used, read from the library once.
pub(crate) struct Api {
    /// Which library answered (its file name, or the path from the environment).
    pub library: String,
    pub import_name: ImportName,
    pub release_name: ReleaseHandle,
    pub acquire_cred: AcquireCred,
    pub inquire_cred: InquireCred,
    pub release_cred: ReleaseHandle,
    pub init_sec_context: InitSecContext,
    pub delete_sec_context: DeleteSecContext,
    pub wrap: Wrap,
    pub unwrap: Unwrap,
    pub release_buffer: ReleaseBuffer,
    pub display_status: DisplayStatus,
    /// Kept loaded for the life of the program: the pointers above point into it.
    _library: Library,
}

/// Environment variable naming the GSSAPI library to load instead of the usual ones
/// (a file name or a path).
pub const LIBRARY_ENV: &str = "BASALT_GSSAPI_LIBRARY";

/// The libraries tried, in order: MIT krb5's (Debian's libgssapi-krb5-2, Fedora's
/// krb5-libs), then Heimdal's.
pub const LIBRARY_NAMES: &[&str] = &["libgssapi_krb5.so.2", "libgssapi_krb5.so", "libgssapi.so.3"];

/// The library's entry points, loaded on first use; the same error every time after a
/// failed load.
pub(crate) fn api() -> Result<&'static Api, Error> {
    static API: OnceLock<Result<Api, Error>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Api, Error> {
    let names: Vec<String> = match std::env::var(LIBRARY_ENV) {
        Ok(name) if !name.is_empty() => vec![name],
        _ => LIBRARY_NAMES.iter().map(|s| (*s).to_owned()).collect(),
    };
    load_first(&names)
}

/// Loads the first of `names` that opens.
pub(crate) fn load_first(names: &[String]) -> Result<Api, Error> {
    let mut failures = Vec::new();
    for name in names {
        // SAFETY: loading a shared library runs its initialisers. MIT krb5's and
        // Heimdal's only set up their own state (error tables, locks), which is the
        // normal way these libraries are used by every program linked against them.
        #[allow(unsafe_code)]
        let library = match unsafe { Library::new(name) } {
            Ok(library) => library,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        return entry_points(name, library);
    }
    Err(Error::LibraryMissing { tried: names.join(", "), detail: failures.join("; ") })
}

/// Reads every entry point; a library without one of them is unusable.
#[allow(unsafe_code)]
fn entry_points(name: &str, library: Library) -> Result<Api, Error> {
    macro_rules! symbol {
        ($sym:literal) => {{
            // SAFETY: the type given at each use is the RFC 2744 prototype of that
            // function (MIT's gssapi.h); the pointer is used only while `library`,
            // moved into the returned `Api` and kept for the program's life, is loaded.
            let found = unsafe { library.get(concat!($sym, "\0").as_bytes()) };
            match found {
                Ok(symbol) => *symbol,
                Err(e) => {
                    return Err(Error::LibraryUnusable {
                        library: name.to_owned(),
                        detail: format!("no {}: {e}", $sym),
                    })
                }
            }
        }};
    }
    Ok(Api {
        library: name.to_owned(),
        import_name: symbol!("gss_import_name"),
        release_name: symbol!("gss_release_name"),
        acquire_cred: symbol!("gss_acquire_cred"),
        inquire_cred: symbol!("gss_inquire_cred"),
        release_cred: symbol!("gss_release_cred"),
        init_sec_context: symbol!("gss_init_sec_context"),
        delete_sec_context: symbol!("gss_delete_sec_context"),
        wrap: symbol!("gss_wrap"),
        unwrap: symbol!("gss_unwrap"),
        release_buffer: symbol!("gss_release_buffer"),
        display_status: symbol!("gss_display_status"),
        _library: library,
    })
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api").field("library", &self.library).finish_non_exhaustive()
    }
}

impl Api {
    /// Copies a buffer the library filled and releases it.
    pub fn take_buffer(&self, buffer: &mut Buffer) -> Vec<u8> {
        let bytes = if buffer.value.is_null() || buffer.length == 0 {
            Vec::new()
        } else {
            // SAFETY: the library filled `buffer` with `length` readable bytes at
            // `value` (checked non-null above), valid until released below.
            #[allow(unsafe_code)]
            unsafe {
                std::slice::from_raw_parts(buffer.value as *const u8, buffer.length).to_vec()
            }
        };
        let mut minor = 0;
        // SAFETY: `buffer` was filled by this library (or is empty, which
        // gss_release_buffer accepts) and is released once; it is reset by the call.
        #[allow(unsafe_code)]
        unsafe {
            (self.release_buffer)(&mut minor, buffer);
        }
        bytes
    }

    /// The words of a status: every major message, then the Kerberos (minor) ones.
    pub fn describe(&self, major: OmUint32, minor: OmUint32) -> String {
        let mut parts = self.messages(major, GSS_CODE);
        if minor != 0 {
            parts.extend(self.messages(minor, MECH_CODE));
        }
        if parts.is_empty() {
            format!("major status {major:#x}, minor status {minor}")
        } else {
            parts.join(": ")
        }
    }

    fn messages(&self, status: OmUint32, kind: c_int) -> Vec<String> {
        let mut out = Vec::new();
        let mut context: OmUint32 = 0;
        // display_status hands out one message per call; bound the loop in case a
        // library never resets the context.
        for _ in 0..8 {
            let mut minor = 0;
            let mut text = Buffer::empty();
            // SAFETY: all pointers are to live locals; the mechanism OID is a static
            // the library only reads; `text` is released by take_buffer.
            #[allow(unsafe_code)]
            let major =
                unsafe { (self.display_status)(&mut minor, status, kind, MECH_KRB5.as_ptr(), &mut context, &mut text) };
            if major & 0xffff_0000 != 0 {
                let _ = self.take_buffer(&mut text);
                break;
            }
            let bytes = self.take_buffer(&mut text);
            let message = String::from_utf8_lossy(&bytes).trim().to_owned();
            if !message.is_empty() {
                out.push(message);
            }
            if context == 0 {
                break;
            }
        }
        out
    }
}
