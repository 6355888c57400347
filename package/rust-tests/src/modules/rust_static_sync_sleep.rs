// SPDX-License-Identifier: GPL-2.0

//! What the user of `init_static_sync!` gets when a static's value sleeps:
//! the value is computed on first use with preemption disabled, so a
//! `GFP_KERNEL` allocation there is a sleep in atomic context, which a
//! kernel with `CONFIG_DEBUG_ATOMIC_SLEEP` reports ("BUG: sleeping function
//! called from invalid context"); the value is still right. The allocation
//! is freed at once: a static's value is never dropped.

use kernel::{
    prelude::*,
    sync::{init_static_sync, Mutex},
};

module! {
    type: StaticSyncSleep,
    name: "rust_static_sync_sleep",
    author: "Rust-for-Linux 6.12 test distro",
    description: "init_static_sync! with a value that sleeps: the atomic-sleep report",
    license: "GPL",
}

init_static_sync! {
    static VALUE: Mutex<u32> = KBox::new(42, GFP_KERNEL).map_or(0, |b| *b);
}

struct StaticSyncSleep;

impl kernel::Module for StaticSyncSleep {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("value {}\n", *VALUE.lock());
        Ok(StaticSyncSleep)
    }
}
