//! The Docker route: the launcher in the image built from `docker/Dockerfile`, run
//! through the `testcontainers` crate (feature `docker`).

use std::process::{Command, Stdio};
use std::time::Instant;

use testcontainers::core::{IntoContainerPort, WaitFor};
use testcontainers::runners::SyncRunner;
use testcontainers::{Container, GenericImage};

use crate::TestkitError;

/// Asks for Docker: set to `1` to prefer a container over the native launcher.
pub const DOCKER_ENV: &str = "BASALT_TESTKIT_DOCKER";
/// The image to run (default `basalt-hbase:latest`, built with
/// `docker build -t basalt-hbase docker/`).
pub const IMAGE_ENV: &str = "BASALT_DOCKER_IMAGE";

/// Whether the user asked for Docker and an engine answers.
pub(crate) fn wanted_and_available() -> bool {
    let asked = matches!(std::env::var(DOCKER_ENV).as_deref(), Ok("1") | Ok("true"));
    if !asked {
        return false;
    }
    let answers = Command::new("docker")
        .arg("info")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !answers {
        eprintln!("basalt-testkit: {DOCKER_ENV}=1 but no Docker engine answers; using the native launcher");
    }
    answers
}

/// A running container (removed when dropped) and its Thrift2 address.
pub(crate) struct Started {
    pub container: Container<GenericImage>,
    pub addr: String,
    pub ready_in: std::time::Duration,
}

pub(crate) fn start() -> Result<Started, TestkitError> {
    let image = std::env::var(IMAGE_ENV).unwrap_or_else(|_| "basalt-hbase:latest".to_owned());
    let (name, tag) = image.rsplit_once(':').unwrap_or((image.as_str(), "latest"));
    let started = Instant::now();
    // The launcher logs "ready in N ms" on stderr once a real Thrift2 call answered.
    let container = GenericImage::new(name, tag)
        .with_exposed_port(9090.tcp())
        .with_wait_for(WaitFor::message_on_stderr("ready in"))
        .start()
        .map_err(|e| TestkitError::StartFailed(format!("docker image {image}: {e}")))?;
    let port = container
        .get_host_port_ipv4(9090.tcp())
        .map_err(|e| TestkitError::StartFailed(format!("docker port of {image}: {e}")))?;
    Ok(Started { container, addr: format!("127.0.0.1:{port}"), ready_in: started.elapsed() })
}
