//! A Docker API version shim between `testcontainers` and an older engine.
//!
//! `testcontainers` 0.23 talks to the engine through `bollard` at a fixed API version
//! (1.47, Docker 27.1) without negotiating, and an engine rejects any version above its
//! own ("client version 1.47 is too new"). Debian 12's `docker.io` (20.10) speaks 1.41.
//! When the engine is older than the client, this shim listens on a private Unix socket
//! (in a 0700 directory), and forwards every connection to the engine's socket,
//! rewriting the `/vX.Y/` prefix of each request line down to the engine's version.
//! Everything else (bodies, streamed logs, hijacked exec streams) passes through
//! untouched. The requests `testcontainers` makes here (create with ports and labels,
//! start, inspect, logs, remove) all exist in API 1.41 with the same shapes.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A running shim; stops accepting and removes its socket when dropped.
pub(crate) struct ApiShim {
    dir: PathBuf,
    socket: PathBuf,
    stop: Arc<AtomicBool>,
}

impl ApiShim {
    /// Listens on a new socket that forwards to `engine`, rewriting request versions
    /// above `engine_version` (`(major, minor)`) down to it.
    pub(crate) fn start(engine: &Path, engine_version: (u32, u32)) -> io::Result<ApiShim> {
        let dir = std::env::temp_dir().join(format!("basalt-docker-api-{}", std::process::id()));
        remove_stale_dirs(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir)?;
        set_private(&dir)?;
        let socket = dir.join("docker.sock");
        let listener = UnixListener::bind(&socket)?;
        let stop = Arc::new(AtomicBool::new(false));
        let engine = engine.to_path_buf();
        let stopping = Arc::clone(&stop);
        std::thread::Builder::new().name("basalt-docker-api-shim".into()).spawn(move || {
            for client in listener.incoming() {
                if stopping.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(client) = client else { continue };
                let engine = engine.clone();
                let _ = std::thread::Builder::new()
                    .name("basalt-docker-api-conn".into())
                    .spawn(move || forward(client, &engine, engine_version));
            }
        })?;
        Ok(ApiShim { dir, socket, stop })
    }

    /// The `DOCKER_HOST` value that reaches the engine through the shim.
    pub(crate) fn docker_host(&self) -> String {
        format!("unix://{}", self.socket.display())
    }
}

impl Drop for ApiShim {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so that it sees the flag and returns.
        let _ = UnixStream::connect(&self.socket);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Removes shim directories left by processes that are gone (killed before dropping).
fn remove_stale_dirs(own: &Path) {
    let Some(parent) = own.parent() else { return };
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("basalt-docker-api-")) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(unix)]
fn set_private(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// One client connection: requests go through [`forward_requests`], replies are copied
/// back as they come.
fn forward(client: UnixStream, engine: &Path, engine_version: (u32, u32)) {
    let Ok(upstream) = UnixStream::connect(engine) else { return };
    let (Ok(client_write), Ok(upstream_read)) = (client.try_clone(), upstream.try_clone()) else { return };
    let replies = std::thread::spawn(move || {
        let mut from = upstream_read;
        let mut to = client_write;
        let _ = io::copy(&mut from, &mut to);
        let _ = to.shutdown(std::net::Shutdown::Write);
    });
    let mut to = upstream;
    let _ = forward_requests(&mut BufReader::new(client), &mut to, engine_version);
    let _ = to.shutdown(std::net::Shutdown::Write);
    let _ = replies.join();
}

/// Copies HTTP/1.1 requests from `from` to `to`, rewriting each request line's API
/// version; after a request that upgrades the connection (exec, attach), the rest of
/// the stream is copied as is.
fn forward_requests(from: &mut impl BufRead, to: &mut impl Write, engine_version: (u32, u32)) -> io::Result<()> {
    loop {
        let Some(head) = read_head(from)? else { return Ok(()) };
        let (line, rest) = head.split_once("\r\n").unwrap_or((head.as_str(), ""));
        to.write_all(rewrite_request_line(line, engine_version).as_bytes())?;
        to.write_all(b"\r\n")?;
        to.write_all(rest.as_bytes())?;
        let headers = rest.to_ascii_lowercase();
        let header = |name: &str| {
            headers.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim_start_matches(':').trim().to_owned()))
        };
        if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            copy_chunked(from, to)?;
        } else if let Some(length) = header("content-length") {
            let length: u64 = length
                .parse()
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad Content-Length in a request"))?;
            let copied = io::copy(&mut from.take(length), to)?;
            if copied != length {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        to.flush()?;
        if header("upgrade").is_some() || header("connection").is_some_and(|v| v.contains("upgrade")) {
            io::copy(from, to)?;
            return Ok(());
        }
    }
}

/// Longest request head accepted (the engine's own limit is similar).
const MAX_HEAD: usize = 1 << 20;

/// Reads one request head, up to and including the blank line; `None` at a clean end
/// of stream.
fn read_head(from: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut head = Vec::new();
    loop {
        let n = from.take((MAX_HEAD - head.len()) as u64 + 1).read_until(b'\n', &mut head)?;
        if n == 0 {
            return if head.is_empty() { Ok(None) } else { Err(io::ErrorKind::UnexpectedEof.into()) };
        }
        if head.len() > MAX_HEAD {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "request head too long"));
        }
        if head.ends_with(b"\r\n\r\n") || head == b"\r\n" {
            break;
        }
    }
    String::from_utf8(head).map(Some).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "request head not UTF-8"))
}

/// Copies one chunked body, chunk by chunk, through its final chunk and trailers.
fn copy_chunked(from: &mut impl BufRead, to: &mut impl Write) -> io::Result<()> {
    loop {
        let mut size_line = Vec::new();
        from.take(4096).read_until(b'\n', &mut size_line)?;
        if !size_line.ends_with(b"\n") {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "bad chunk size line"));
        }
        to.write_all(&size_line)?;
        let text = std::str::from_utf8(&size_line).unwrap_or("");
        let size = text.split(';').next().unwrap_or("").trim();
        let size = u64::from_str_radix(size, 16)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad chunk size in a request"))?;
        if size == 0 {
            // Trailers, then the blank line.
            loop {
                let mut line = Vec::new();
                from.take(MAX_HEAD as u64).read_until(b'\n', &mut line)?;
                if line.is_empty() {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                to.write_all(&line)?;
                if line == b"\r\n" || line == b"\n" {
                    return Ok(());
                }
            }
        }
        // The chunk and its CRLF.
        let copied = io::copy(&mut from.take(size + 2), to)?;
        if copied != size + 2 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
}

/// `POST /v1.47/containers/create HTTP/1.1` becomes `POST /v1.41/...` against a 1.41
/// engine; lines without a version, or with one the engine speaks, are unchanged.
fn rewrite_request_line(line: &str, engine: (u32, u32)) -> String {
    let mut parts = line.splitn(3, ' ');
    let (Some(method), Some(target), Some(protocol)) = (parts.next(), parts.next(), parts.next()) else {
        return line.to_owned();
    };
    let Some(after) = target.strip_prefix("/v") else { return line.to_owned() };
    let Some((version, path)) = after.split_once('/') else { return line.to_owned() };
    match parse_version(version) {
        Some(asked) if asked > engine => format!("{method} /v{}.{}/{path} {protocol}", engine.0, engine.1),
        _ => line.to_owned(),
    }
}

/// `"1.41"` as `(1, 41)`.
pub(crate) fn parse_version(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_only_newer_versions() {
        let engine = (1, 41);
        assert_eq!(
            rewrite_request_line("POST /v1.47/containers/create?name=x HTTP/1.1", engine),
            "POST /v1.41/containers/create?name=x HTTP/1.1"
        );
        assert_eq!(rewrite_request_line("GET /v1.40/info HTTP/1.1", engine), "GET /v1.40/info HTTP/1.1");
        assert_eq!(rewrite_request_line("GET /_ping HTTP/1.1", engine), "GET /_ping HTTP/1.1");
        assert_eq!(rewrite_request_line("GET /vx.y/info HTTP/1.1", engine), "GET /vx.y/info HTTP/1.1");
        assert_eq!(rewrite_request_line("garbage", engine), "garbage");
    }

    #[test]
    fn forwards_bodies_and_keeps_requests_apart() {
        let input = b"POST /v1.47/a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /v1.47/b HTTP/1.1\r\n\r\n\
POST /v1.47/c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        let mut out = Vec::new();
        forward_requests(&mut &input[..], &mut out, (1, 41)).unwrap();
        let expected = b"POST /v1.41/a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /v1.41/b HTTP/1.1\r\n\r\n\
POST /v1.41/c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(expected));
    }

    #[test]
    fn an_upgraded_stream_passes_as_is() {
        let input =
            b"POST /v1.47/exec/x/start HTTP/1.1\r\nUpgrade: tcp\r\nConnection: Upgrade\r\nContent-Length: 2\r\n\r\n{}\
GET /v1.47/raw HTTP/1.1\r\n\r\n";
        let mut out = Vec::new();
        forward_requests(&mut &input[..], &mut out, (1, 41)).unwrap();
        assert!(out.starts_with(b"POST /v1.41/exec/x/start"));
        assert!(out.ends_with(b"{}GET /v1.47/raw HTTP/1.1\r\n\r\n"), "bytes after the upgrade are not rewritten");
    }

    #[test]
    fn truncated_or_hostile_requests_fail_cleanly() {
        let mut out = Vec::new();
        let short_body = b"POST /v1.47/a HTTP/1.1\r\nContent-Length: 50\r\n\r\nhi";
        assert!(forward_requests(&mut &short_body[..], &mut out, (1, 41)).is_err());
        let bad_length = b"POST /v1.47/a HTTP/1.1\r\nContent-Length: lots\r\n\r\n";
        assert!(forward_requests(&mut &bad_length[..], &mut out, (1, 41)).is_err());
        let bad_chunk = b"POST /v1.47/a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
        assert!(forward_requests(&mut &bad_chunk[..], &mut out, (1, 41)).is_err());
        let huge = vec![b'a'; MAX_HEAD + 10];
        assert!(forward_requests(&mut &huge[..], &mut out, (1, 41)).is_err());
        assert_eq!(parse_version("1.41"), Some((1, 41)));
        assert_eq!(parse_version("1"), None);
    }
}
