//! File system calls whose errors name the path (`HarnessError`), the one
//! mapping of an I/O error to a harness error.

use std::fs::File;
use std::path::Path;

use crate::error::HarnessError;

fn read_error(path: &Path) -> impl FnOnce(std::io::Error) -> HarnessError + '_ {
    move |source| HarnessError::Read {
        path: path.to_path_buf(),
        source,
    }
}

fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> HarnessError + '_ {
    move |source| HarnessError::Write {
        path: path.to_path_buf(),
        source,
    }
}

pub fn read(path: &Path) -> Result<Vec<u8>, HarnessError> {
    std::fs::read(path).map_err(read_error(path))
}

pub fn read_to_string(path: &Path) -> Result<String, HarnessError> {
    std::fs::read_to_string(path).map_err(read_error(path))
}

pub fn read_dir(path: &Path) -> Result<std::fs::ReadDir, HarnessError> {
    std::fs::read_dir(path).map_err(read_error(path))
}

pub fn write(path: &Path, text: &str) -> Result<(), HarnessError> {
    std::fs::write(path, text).map_err(write_error(path))
}

pub fn create(path: &Path) -> Result<File, HarnessError> {
    File::create(path).map_err(write_error(path))
}

/// Copies `from` to `to` (an error names `to`).
pub fn copy(from: &Path, to: &Path) -> Result<(), HarnessError> {
    std::fs::copy(from, to).map(|_| ()).map_err(write_error(to))
}

/// Removes a file; one that is not there is fine.
pub fn remove_file(path: &Path) -> Result<(), HarnessError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(write_error(path)(e)),
        _ => Ok(()),
    }
}

pub fn create_dir(path: &Path) -> Result<(), HarnessError> {
    std::fs::create_dir_all(path).map_err(|source| HarnessError::CreateDir {
        path: path.to_path_buf(),
        source,
    })
}
