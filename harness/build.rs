//! Builds the runner's manifest reader for this host (`manifest-list`, C:
//! package/rust-tests/src), the one reader of the manifest's grammar: the
//! harness runs it on a manifest file given to it (`--manifest`, `parse`
//! without an image); an image carries its own listing. The sources are
//! copied into OUT_DIR (the runner's Makefile writes beside them), and the
//! reader's path is the harness's `RUST_QEMU_MANIFEST_LIST`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../package/rust-tests/src");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("rust-tests-src");
    std::fs::create_dir_all(&out).expect("OUT_DIR is writable");
    println!("cargo:rerun-if-changed={}", src.display());
    for entry in std::fs::read_dir(&src).expect("package/rust-tests/src is there") {
        let path = entry.expect("a directory entry").path();
        if path.is_file() {
            let to = out.join(path.file_name().expect("a file name"));
            std::fs::copy(&path, &to).expect("the copy of a runner source");
        }
    }
    let status = Command::new("make")
        .args(["-s", "-C"])
        .arg(&out)
        .arg("manifest-list")
        .status()
        .expect("make runs (the runner's manifest reader is C: make and cc)");
    assert!(
        status.success(),
        "the runner's manifest reader (make manifest-list in {}) does not build",
        out.display()
    );
    println!(
        "cargo:rustc-env=RUST_QEMU_MANIFEST_LIST={}",
        out.join("manifest-list").display()
    );
}
