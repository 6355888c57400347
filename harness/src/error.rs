//! Errors of the harness itself (as opposed to test or infrastructure
//! failures of a boot, which are results).

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum HarnessError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot create directory {}: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{origin}: {message}")]
    ArchTable { origin: String, message: String },
    #[error("{origin}: {message}")]
    ManifestLine { origin: String, message: String },
    #[error("the boot command of {defconfig}: {message}")]
    BoardCommand { defconfig: String, message: String },
    #[error("{manifest} has no test {names} (--only)")]
    UnknownTest { manifest: String, names: String },
    #[error("unknown arch '{name}' (known: {known})")]
    UnknownArch { name: String, known: String },
    #[error("{}: not a results file: {source}", path.display())]
    ResultsFile {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("no one kernel source in the results: {0}")]
    KernelSource(String),
    #[error("cannot encode results as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
}
