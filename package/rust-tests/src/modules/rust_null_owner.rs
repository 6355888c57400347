// SPDX-License-Identifier: GPL-2.0

//! A misuse the kernel crate must refuse: a loadable module whose file
//! operations have the null `OWNER` of code built into the kernel (the
//! examples' `OWNER`, copied). With it, the module could be unloaded while
//! its device is open; the registration fails with `EINVAL` instead, so the
//! module does not load.

use kernel::{
    file::{self, File},
    prelude::*,
};

kernel::module_misc_device! {
    type: NullOwner,
    name: "rust_null_owner",
    author: "Rust-for-Linux 6.12 test distro",
    description: "A misc device whose file operations have a null owner: must not load",
    license: "GPL",
}

struct NullOwner;

#[vtable]
impl file::Operations for NullOwner {
    type Data = ();
    type OpenData = ();
    // SAFETY: Not met, on purpose: this is the misuse under test, which the registration
    // refuses before anything uses the owner.
    const OWNER: &'static ThisModule = &unsafe { ThisModule::from_ptr(core::ptr::null_mut()) };

    fn open(_context: &(), _file: &File) -> Result {
        Ok(())
    }
}
