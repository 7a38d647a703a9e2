//! Names, credentials and client contexts: owned GSSAPI handles, released on drop.

use std::os::raw::c_int;
use std::time::Duration;

use crate::library::{
    api, Api, Buffer, Handle, OmUint32, CONTINUE_NEEDED, INDEFINITE, INITIATE, KRB5_MECH_SET, MECH_KRB5,
    NT_HOSTBASED_SERVICE, NT_KRB5_PRINCIPAL,
};
use crate::Error;

/// Whether a major status is an error (a calling or routine error).
fn failed(major: OmUint32) -> bool {
    major & 0xffff_0000 != 0
}

fn gss_error(api: &Api, call: &'static str, major: OmUint32, minor: OmUint32) -> Error {
    Error::Gss { call, major, minor, message: api.describe(major, minor) }
}

/// How a [`Name`]'s text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameType {
    /// A Kerberos principal, `user@REALM` (`GSS_KRB5_NT_PRINCIPAL_NAME`).
    KerberosPrincipal,
    /// A service on a host, `service@host` (`GSS_C_NT_HOSTBASED_SERVICE`).
    HostBasedService,
}

/// A GSSAPI name (`gss_name_t`).
#[derive(Debug)]
pub struct Name {
    api: &'static Api,
    handle: Handle,
    text: String,
}

// SAFETY: a gss_name_t is a heap object of the library, not tied to the thread that
// made it; MIT krb5 and Heimdal allow a handle to be used from any thread, one at a
// time, which `&mut`/ownership guarantees (Name is not Sync).
unsafe impl Send for Name {}

impl Name {
    /// Imports `text` as a name of type `kind`.
    pub fn new(text: &str, kind: NameType) -> Result<Name, Error> {
        let api = api()?;
        let oid = match kind {
            NameType::KerberosPrincipal => NT_KRB5_PRINCIPAL.as_ptr(),
            NameType::HostBasedService => NT_HOSTBASED_SERVICE.as_ptr(),
        };
        let mut minor = 0;
        let mut handle: Handle = std::ptr::null_mut();
        let mut input = Buffer::input(text.as_bytes());
        // SAFETY: `input` points at `text`'s bytes, alive for the call and only read;
        // `oid` is a static the library only reads; `handle` receives a new name that
        // this value owns and releases on drop.
        let major = unsafe { (api.import_name)(&mut minor, &mut input, oid, &mut handle) };
        if failed(major) {
            return Err(gss_error(api, "gss_import_name", major, minor));
        }
        Ok(Name { api, handle, text: text.to_owned() })
    }

    /// The text the name was made from.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl Drop for Name {
    fn drop(&mut self) {
        let mut minor = 0;
        // SAFETY: `handle` was made by gss_import_name and is released once, here.
        unsafe {
            (self.api.release_name)(&mut minor, &mut self.handle);
        }
    }
}

/// Kerberos credentials to start contexts with (`gss_cred_id_t`, initiator usage).
#[derive(Debug)]
pub struct Credential {
    api: &'static Api,
    handle: Handle,
}

// SAFETY: as for Name: a library heap object usable from any thread, one at a time.
unsafe impl Send for Credential {}

impl Credential {
    /// The Kerberos credentials of `principal`, or of the ticket cache's default
    /// principal when `None`. The library finds them in the ticket cache
    /// (`KRB5CCNAME`) or, with MIT krb5, gets them with the client keytab
    /// (`KRB5_CLIENT_KTNAME`). Blocking: it may read files.
    pub fn acquire(principal: Option<&Name>) -> Result<Credential, Error> {
        let api = api()?;
        let mut minor = 0;
        let mut handle: Handle = std::ptr::null_mut();
        let desired = principal.map_or(std::ptr::null_mut(), |n| n.handle);
        // SAFETY: `desired` is a live name (or GSS_C_NO_NAME); the mechanism set is a
        // static the library only reads; actual_mechs and time_rec are not asked for
        // (null); `handle` receives a credential this value owns.
        let major = unsafe {
            (api.acquire_cred)(
                &mut minor,
                desired,
                INDEFINITE,
                KRB5_MECH_SET.as_ptr(),
                INITIATE,
                &mut handle,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if failed(major) {
            return Err(gss_error(api, "gss_acquire_cred", major, minor));
        }
        Ok(Credential { api, handle })
    }

    /// How long the credentials stay valid (`Duration::MAX` when the library says
    /// there is no limit). An expired ticket gives zero or an error for which
    /// [`Error::is_credentials_expired`] holds.
    pub fn lifetime(&self) -> Result<Duration, Error> {
        let mut minor = 0;
        let mut lifetime: OmUint32 = 0;
        // SAFETY: `handle` is a live credential; only the lifetime is asked for (the
        // other outputs are null, which RFC 2744 allows).
        let major = unsafe {
            (self.api.inquire_cred)(
                &mut minor,
                self.handle,
                std::ptr::null_mut(),
                &mut lifetime,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if failed(major) {
            return Err(gss_error(self.api, "gss_inquire_cred", major, minor));
        }
        Ok(if lifetime == INDEFINITE { Duration::MAX } else { Duration::from_secs(u64::from(lifetime)) })
    }
}

impl Drop for Credential {
    fn drop(&mut self) {
        let mut minor = 0;
        // SAFETY: `handle` was made by gss_acquire_cred and is released once, here.
        unsafe {
            (self.api.release_cred)(&mut minor, &mut self.handle);
        }
    }
}

/// Context flags asked of `gss_init_sec_context` (`GSS_C_*_FLAG`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(u32);

impl Flags {
    /// Mutual authentication: the server proves who it is too.
    pub const MUTUAL: Flags = Flags(2);
    /// Replay detection.
    pub const REPLAY: Flags = Flags(4);
    /// Out-of-sequence detection.
    pub const SEQUENCE: Flags = Flags(8);
    /// Confidentiality (wrap may encrypt).
    pub const CONF: Flags = Flags(16);
    /// Integrity (wrap signs).
    pub const INTEG: Flags = Flags(32);

    /// The flags as the C bit mask.
    pub fn bits(self) -> u32 {
        self.0
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

/// A message [`ClientContext::unwrap`] verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwrapped {
    /// The message.
    pub message: Vec<u8>,
    /// Whether it was encrypted (not only signed).
    pub encrypted: bool,
}

/// A Kerberos security context on the client side (`gss_ctx_id_t`), deleted on drop.
#[derive(Debug)]
pub struct ClientContext {
    api: &'static Api,
    handle: Handle,
    credential: Credential,
    target: Name,
    flags: Flags,
    complete: bool,
}

// SAFETY: as for Name: the context is a library heap object usable from any thread,
// one at a time (`step`, `wrap` and `unwrap` take `&mut self`; the type is not Sync).
unsafe impl Send for ClientContext {}

impl ClientContext {
    /// A context for `target` (usually a [`NameType::HostBasedService`]) with
    /// `credential`, asking for `flags`. Nothing is sent or computed until
    /// [`step`](Self::step).
    pub fn new(credential: Credential, target: Name, flags: Flags) -> ClientContext {
        ClientContext { api: credential.api, handle: std::ptr::null_mut(), credential, target, flags, complete: false }
    }

    /// One step of `gss_init_sec_context`: `input` is the server's last token (`None`
    /// at first). Returns the token to send, if the library made one. The context is
    /// [complete](Self::is_complete) when the library says no more steps are needed.
    /// Blocking: the first step may ask the KDC for a service ticket.
    pub fn step(&mut self, input: Option<&[u8]>) -> Result<Option<Vec<u8>>, Error> {
        let api = self.api;
        if self.complete {
            return Err(Error::Protection("the security context is already complete".into()));
        }
        let (credential, target) = (self.credential.handle, self.target.handle);
        let mut input_buffer = input.map(Buffer::input);
        let input_ptr = input_buffer.as_mut().map_or(std::ptr::null_mut(), |b| b as *mut Buffer);
        let mut output = Buffer::empty();
        let mut minor = 0;
        // SAFETY: the credential and target name are live handles owned by self;
        // `handle` is this context (null before the first step),
        // updated in place by the library; the input token is a borrowed slice only
        // read; no channel bindings; the actual mechanism, returned flags and time are
        // not asked for (null); `output` is released by take_buffer.
        let major = unsafe {
            (api.init_sec_context)(
                &mut minor,
                credential,
                &mut self.handle,
                target,
                MECH_KRB5.as_ptr(),
                self.flags.bits(),
                0,
                std::ptr::null_mut(),
                input_ptr,
                std::ptr::null_mut(),
                &mut output,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        let token = api.take_buffer(&mut output);
        if failed(major) {
            return Err(gss_error(api, "gss_init_sec_context", major, minor));
        }
        self.complete = major & CONTINUE_NEEDED == 0;
        Ok(if token.is_empty() { None } else { Some(token) })
    }

    /// Whether the context is established (no more tokens to exchange).
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    fn established(&self) -> Result<&'static Api, Error> {
        if !self.complete {
            return Err(Error::Protection("the security context is not established yet".into()));
        }
        Ok(self.api)
    }

    /// Signs `message`, and encrypts it too when `encrypt` (failing if the context
    /// cannot), with the default quality of protection (`gss_wrap`).
    pub fn wrap(&mut self, encrypt: bool, message: &[u8]) -> Result<Vec<u8>, Error> {
        let api = self.established()?;
        let mut input = Buffer::input(message);
        let mut output = Buffer::empty();
        let mut encrypted: c_int = 0;
        let mut minor = 0;
        // SAFETY: `handle` is an established context owned by self; `input` borrows
        // `message`, only read; `output` is released by take_buffer.
        let major = unsafe {
            (api.wrap)(&mut minor, self.handle, c_int::from(encrypt), 0, &mut input, &mut encrypted, &mut output)
        };
        let token = api.take_buffer(&mut output);
        if failed(major) {
            return Err(gss_error(api, "gss_wrap", major, minor));
        }
        if encrypt && encrypted == 0 {
            return Err(Error::Protection("gss_wrap did not encrypt although confidentiality was asked for".into()));
        }
        Ok(token)
    }

    /// Verifies (and decrypts) a token the server wrapped (`gss_unwrap`).
    pub fn unwrap(&mut self, token: &[u8]) -> Result<Unwrapped, Error> {
        let api = self.established()?;
        let mut input = Buffer::input(token);
        let mut output = Buffer::empty();
        let mut encrypted: c_int = 0;
        let mut qop: OmUint32 = 0;
        let mut minor = 0;
        // SAFETY: as in wrap; the returned protection and QOP go to locals.
        let major = unsafe { (api.unwrap)(&mut minor, self.handle, &mut input, &mut output, &mut encrypted, &mut qop) };
        let message = api.take_buffer(&mut output);
        if failed(major) {
            return Err(gss_error(api, "gss_unwrap", major, minor));
        }
        Ok(Unwrapped { message, encrypted: encrypted != 0 })
    }
}

impl Drop for ClientContext {
    fn drop(&mut self) {
        if self.handle.is_null() {
            return;
        }
        let mut minor = 0;
        // SAFETY: `handle` was made by gss_init_sec_context and is deleted once, here
        // (before the credential and name it uses are released); no output token is
        // asked for.
        unsafe {
            (self.api.delete_sec_context)(&mut minor, &mut self.handle, std::ptr::null_mut());
        }
    }
}
