// SPDX-License-Identifier: GPL-2.0

//! An out-of-tree Rust module: the template for your own.
//!
//! Built by Buildroot's `kernel-module` infrastructure against the patched
//! kernel (`package/rust-module-example/`). It registers the misc device
//! `/dev/rust_example`: reading it returns the `greeting` module parameter and
//! a newline, at most `MAX_GREETING` bytes of it; writing it is refused.

use kernel::{
    file::{self, File},
    prelude::*,
    uaccess::UserSliceWriter,
};

kernel::module_misc_device! {
    type: Example,
    name: "rust_example",
    author: "Rust-for-Linux 6.12 test distro",
    description: "An out-of-tree Rust module",
    license: "GPL",
    params: {
        greeting: str {
            default: "Hello from an out-of-tree Rust module",
            permissions: 0o644,
            description: "What reading /dev/rust_example returns",
        },
    },
}

/// The most bytes of the greeting a read returns.
const MAX_GREETING: usize = 64;

struct Example;

#[vtable]
impl file::Operations for Example {
    type Data = ();
    type OpenData = ();
    const OWNER: &'static ThisModule = &THIS_MODULE;

    fn open(_data: &(), _file: &File) -> Result {
        Ok(())
    }

    fn read(_this: (), _file: &File, buf: &mut UserSliceWriter, offset: u64) -> Result<usize> {
        let mut text = [0u8; MAX_GREETING + 1];
        let len = {
            let lock = THIS_MODULE.kernel_param_lock();
            let value = greeting.read(&lock)?;
            let len = value.len().min(MAX_GREETING);
            text[..len].copy_from_slice(&value[..len]);
            len
        };
        text[len] = b'\n';
        let text = &text[..=len];
        let start = usize::try_from(offset).map_or(text.len(), |o| o.min(text.len()));
        let chunk = &text[start..];
        let count = chunk.len().min(buf.len());
        buf.write_slice(&chunk[..count])?;
        Ok(count)
    }
}
