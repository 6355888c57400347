//! LAVA, the engine kernel test labs run: a job definition and a device
//! file for each QEMU arch, from the same data as a direct boot (the board
//! readme's command with the harness's kernel arguments, the arch table's
//! timeouts), so that a lab boots exactly what `run` boots. The verdict of
//! a LAVA run still comes from the harness, re-reading LAVA's log
//! (`../shared/notes/labs-lava.md`: monitors report top-level results only).
//!
//! The job fits Debian 12's LAVA 2023.01: device type `qemu` without KVM,
//! `deploy to: tmpfs`, `boot method: qemu` with no prompts (the image runs
//! the tests and powers off), and a `monitors` test on the runner's KTAP.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::app::arch_manifest;
use crate::arch_table::{ArchSpec, ArchTable};
use crate::board::{BootCommand, Launcher};
use crate::cli::LavaJobsArgs;
use crate::error::HarnessError;
use crate::fsx;
use crate::layout::DEFAULT_OUTPUT;
use crate::plan::QUICK;

/// `lava-jobs`: the files of every arch and cell that has images (or of
/// those named, which must); exit 2 if nothing has images.
pub fn write_jobs(
    table: &ArchTable,
    tree: &Path,
    manifest: Option<&Path>,
    args: &LavaJobsArgs,
) -> Result<u8, HarnessError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let base = crate::layout::find_repo_root(&cwd).unwrap_or(cwd.clone());
    let output = args
        .output_dir
        .as_ref()
        .map_or_else(|| base.join(DEFAULT_OUTPUT), |d| cwd.join(d));
    let lava_dir = args
        .lava_dir
        .as_ref()
        .map_or_else(|| output.join("lava"), |d| cwd.join(d));
    if let Some(url) = &args.base_url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            eprintln!("rust-qemu-test: LAVA_BASE_URL (--base-url) '{url}' is not an http:// or https:// URL");
            return Ok(2);
        }
    }
    let named = !args.arch.is_empty();
    let specs: Vec<&ArchSpec> = if named {
        table.select(&args.arch)?
    } else {
        table
            .arches
            .iter()
            .chain(table.cells.iter().map(|c| &c.spec))
            .collect()
    };
    let layout = crate::layout::Layout {
        output: output.clone(),
        results: base.join(crate::layout::DEFAULT_RESULTS),
    };
    let (mut written, mut explained, mut code) = (0, 0, 0);
    for spec in specs {
        let boot = spec.boot_command(tree)?;
        let images = spec.images_dir(&output);
        if !boot.images.iter().all(|i| images.join(i).is_file()) {
            if named {
                eprintln!(
                    "{}: no images in {}: build them first: {}",
                    spec.name,
                    images.display(),
                    spec.build_command()
                );
                code = 2;
            }
            continue;
        }
        let mut words = arch_manifest(manifest, spec, &layout, tree, &[])?.kernel_args;
        words.extend(spec.toolchain.iter().map(|_| QUICK.to_string()));
        let args_run = boot.launch_args(&ArchSpec::cmdline_extra(&words), &[], &images);
        let at = match &args.base_url {
            Some(url) => ImagesAt(format!(
                "{}/{}",
                url.trim_end_matches('/'),
                spec.output_name()
            )),
            None => ImagesAt(format!("file://{}", images.display())),
        };
        match job_and_device(spec, &boot, &args_run, &at) {
            Ok((job, device)) => {
                let dir = lava_dir.join(&spec.name);
                fsx::create_dir(&dir)?;
                let head = format!(
                    "# {} ({}): written by rust-qemu-test lava-jobs\n",
                    spec.name,
                    spec.output_name()
                );
                fsx::write(&dir.join("job.yaml"), &(head.clone() + &yaml(&job)))?;
                fsx::write(&dir.join("device.yaml"), &(head + &yaml(&device)))?;
                println!("{}: {}", spec.name, dir.join("job.yaml").display());
                written += 1;
            }
            Err(why) => {
                println!("{why}");
                explained += 1;
            }
        }
    }
    // built, but none a LAVA device (um alone): said above, not an error
    if written == 0 && explained == 0 && code == 0 {
        eprintln!(
            "rust-qemu-test: no arch has images under {}: build one first (make <defconfig> && make; ls configs/)",
            output.display()
        );
        code = 2;
    }
    Ok(code)
}

/// The LAVA arch of each QEMU binary, and whether the `qemu` device
/// template takes the machine and the CPU from the job's context (else
/// they go into `extra_options`), as Debian 12's `qemu.jinja2` does.
/// loongarch64 is in no LAVA template: its device file lists it.
const ARCHES: &[(&str, &str, bool, bool)] = &[
    ("qemu-system-x86_64", "x86_64", false, false),
    ("qemu-system-aarch64", "arm64", true, true),
    ("qemu-system-arm", "arm", true, true),
    ("qemu-system-riscv64", "riscv64", true, true),
    ("qemu-system-ppc64", "ppc64", true, false),
    ("qemu-system-loongarch64", "loongarch64", false, false),
];

/// The monitor's patterns: the runner's top-level KTAP results (nested
/// lines are indented; a `# SKIP` is left out, not a pass) between its
/// KTAP header and the end sentinel (docs/test-protocol.md). The end is
/// the sentinel's whole line: LAVA stops reading at the match, and logs a
/// console line only once its newline has been read. The console's line
/// ends are `\r\r\n` there (the kernel's `\r\n`, then the pty's own).
const MONITOR_START: &str = "rust-tests: KTAP version 1";
const MONITOR_END: &str = r"rust-qemu: end exit=\d+\r*\n";
const MONITOR_PATTERN: &str =
    r"rust-tests: (?P<result>not ok|ok(?! \d+ \S+ # SKIP)) \d+ (?P<test_case_id>[^\s#]+)";

/// Where a job's images are: `file://<images dir>` or a lab's base URL.
#[derive(Debug, Clone)]
pub struct ImagesAt(pub String);

impl ImagesAt {
    fn url(&self, file: &str) -> String {
        format!("{}/{file}", self.0.trim_end_matches('/'))
    }
}

/// A QEMU command split the way LAVA builds it: device options, the
/// job's context, image arguments.
#[derive(Debug, Default, PartialEq)]
struct Split {
    machine: Option<String>,
    cpu: Option<String>,
    memory: Option<String>,
    kernel: Option<String>,
    cmdline: Option<String>,
    rootfs: Option<(String, String)>,
    dtb: Option<String>,
    extra: Vec<String>,
}

/// Splits the arguments of a QEMU boot (as the harness runs it).
fn split(args: &[String], images: &[String]) -> Split {
    let mut out = Split::default();
    let mut words = args.iter().peekable();
    while let Some(word) = words.next() {
        let takes_value = words.peek().is_some_and(|next| !next.starts_with('-'))
            || matches!(word.as_str(), "-append" | "-device" | "-drive");
        let value = if takes_value {
            words.next().cloned()
        } else {
            None
        };
        match (word.as_str(), value) {
            ("-M" | "-machine", Some(v)) => out.machine = Some(v),
            ("-cpu", Some(v)) => out.cpu = Some(v),
            ("-m", Some(v)) => out.memory = Some(v),
            ("-kernel", Some(v)) => out.kernel = Some(v),
            ("-append", Some(v)) => out.cmdline = Some(v),
            ("-dtb", Some(v)) => out.dtb = Some(v),
            ("-drive", Some(v)) if drive_image(&v, images).is_some() => {
                let file = drive_image(&v, images).unwrap_or_default();
                let arg = v.replacen(&format!("file={file}"), "file={rootfs}", 1);
                out.rootfs = Some((file, format!("-drive {arg}")));
            }
            // the disk's device goes with the disk
            ("-device", Some(v)) if out.rootfs.is_some() && v.contains("drive=") => {
                if let Some((_, arg)) = &mut out.rootfs {
                    arg.push_str(&format!(" -device {v}"));
                }
            }
            // the device adds it
            ("-nographic", None) => {}
            (option, Some(v)) => out.extra.push(format!("{option} {v}")),
            (option, None) => out.extra.push(option.to_string()),
        }
    }
    out
}

/// The image file of a `-drive file=<image>,...` value, if it is one.
fn drive_image(value: &str, images: &[String]) -> Option<String> {
    value
        .split(',')
        .find_map(|part| part.strip_prefix("file="))
        .filter(|file| images.iter().any(|i| i == file))
        .map(str::to_string)
}

/// Whole minutes, at least one, for a LAVA timeout.
fn minutes(seconds: f64) -> u64 {
    // rounded up; timeouts are whole minutes in the jobs people write
    let whole = (seconds / 60.0).ceil();
    if whole.is_finite() && whole >= 1.0 {
        whole as u64
    } else {
        1
    }
}

/// The job and the device of one arch: `args` are its QEMU arguments as
/// the harness runs them (the kernel arguments in `-append`).
pub fn job_and_device(
    spec: &ArchSpec,
    boot: &BootCommand,
    args: &[String],
    images: &ImagesAt,
) -> Result<(Value, Value), String> {
    if boot.launcher == Launcher::Uml {
        return Err(format!(
            "{}: User-Mode Linux is no LAVA device (a host process, not a QEMU machine): \
             it stays on the harness (make check, make retest ARCH={})",
            spec.name, spec.name
        ));
    }
    let &(_, arch, takes_machine, takes_cpu) = ARCHES
        .iter()
        .find(|(program, ..)| *program == boot.program)
        .ok_or_else(|| format!("{}: no LAVA arch for {}", spec.name, boot.program))?;
    let parts = split(args, &boot.images);
    let (Some(kernel), Some(cmdline), Some((rootfs, rootfs_arg))) =
        (&parts.kernel, &parts.cmdline, &parts.rootfs)
    else {
        return Err(format!(
            "{}: the boot command has no -kernel, -append or root disk image for LAVA",
            spec.name
        ));
    };
    let mut context = Map::new();
    context.insert("arch".into(), json!(arch));
    context.insert("no_kvm".into(), json!(true));
    if let Some(memory) = parts.memory.as_deref().and_then(|m| m.parse::<u64>().ok()) {
        context.insert("memory".into(), json!(memory));
    }
    let mut extra = Vec::new();
    for (value, option, taken) in [
        (&parts.machine, "-machine", takes_machine),
        (&parts.cpu, "-cpu", takes_cpu),
    ] {
        match value {
            Some(v) if taken => {
                context.insert(option.trim_start_matches('-').into(), json!(v));
            }
            Some(v) => extra.push(format!("{option} {v}")),
            None => {}
        }
    }
    extra.extend(parts.extra.iter().cloned());
    context.insert("extra_options".into(), json!(extra));

    let mut images_map = Map::new();
    images_map.insert(
        "kernel".into(),
        json!({"url": images.url(kernel), "image_arg": format!("-kernel {{kernel}} -append \"{cmdline}\"")}),
    );
    images_map.insert(
        "rootfs".into(),
        json!({"url": images.url(rootfs), "image_arg": rootfs_arg}),
    );
    if let Some(dtb) = &parts.dtb {
        images_map.insert(
            "dtb".into(),
            json!({"url": images.url(dtb), "image_arg": "-dtb {dtb}"}),
        );
    }
    let boot_minutes = minutes(spec.boot_timeout_s);
    let test_minutes = minutes(spec.test_timeout_s);
    let job = json!({
        "device_type": "qemu",
        "job_name": format!("rust-qemu {} ({})", spec.name, spec.output_name()),
        "priority": "medium",
        "visibility": "public",
        "timeouts": {
            "job": {"minutes": boot_minutes + test_minutes + 5},
            "action": {"minutes": boot_minutes + test_minutes},
            // the wait for the runner's KTAP header is a connection wait
            "connections": {"lava-test-monitor": {"minutes": boot_minutes}},
        },
        "context": context,
        "actions": [
            {"deploy": {"to": "tmpfs", "timeout": {"minutes": 5}, "images": images_map}},
            {"boot": {"method": "qemu", "media": "tmpfs", "timeout": {"minutes": boot_minutes}}},
            {"test": {
                "timeout": {"minutes": test_minutes},
                "monitors": [{
                    "name": "rust-tests",
                    "start": MONITOR_START,
                    "end": MONITOR_END,
                    "pattern": MONITOR_PATTERN,
                    "fixupdict": {"ok": "pass", "not ok": "fail"},
                }],
            }},
        ],
    });
    Ok((job, device(&boot.program, &context)))
}

/// A rendered `qemu` device, as Debian 12's `qemu.jinja2` renders it for
/// this context without KVM, with loongarch64 among its arches.
fn device(program: &str, context: &Map<String, Value>) -> Value {
    let text = |key: &str| context.get(key).and_then(Value::as_str);
    let mut options: Vec<String> = Vec::new();
    if let Some(machine) = text("machine") {
        options.push(format!("-machine {machine}"));
    }
    if let Some(cpu) = text("cpu") {
        options.push(format!("-cpu {cpu}"));
    }
    let memory = context.get("memory").and_then(Value::as_u64).unwrap_or(512);
    options.extend([
        "-nographic".to_string(),
        "-net nic,model=virtio,macaddr=52:54:00:12:34:58 -net user".to_string(),
        format!("-m {memory}"),
        "-monitor none".to_string(),
    ]);
    let arches: Vec<&str> = ARCHES.iter().map(|(_, arch, ..)| *arch).collect();
    json!({
        "device_type": "qemu",
        "constants": {
            "posix": {
                "lava_test_sh_cmd": "/bin/sh",
                "lava_test_results_dir": "/lava-%s",
                "lava_test_shell_file": "~/.bashrc",
            },
            "shutdown-message": "The system is going down for reboot NOW",
            "kernel-start-message": "Linux version [0-9]",
            "default-shell-prompt": "lava-test: # ",
            "spawn_maxread": "4092",
            "failure_retry": 1,
            "boot_retry": null,
        },
        "parameters": {"pass": null},
        "available_architectures": arches,
        "actions": {
            // `deploy to: tmpfs` is the `image` method (its guest disk unused)
            "deploy": {
                "connections": {"serial": null},
                "methods": {"image": {"parameters": {"guest": {
                    "size": 512, "interface": "ide", "driveid": "lavatest",
                }}}},
            },
            "boot": {
                "connections": {"serial": null},
                "methods": {"qemu": {"parameters": {
                    "command": program,
                    "options": options,
                    "extra": context.get("extra_options").cloned().unwrap_or_else(|| json!([])),
                }}},
            },
        },
        "timeouts": {
            "actions": {"power-off": {"seconds": 10}},
            "connections": {},
        },
    })
}

/// `value` as block YAML (strings double-quoted, JSON's escapes being
/// YAML's too), for a person to read and LAVA to load.
pub fn yaml(value: &Value) -> String {
    let mut out = String::new();
    block(value, 0, &mut out);
    out
}

fn scalar(value: &Value) -> String {
    match value {
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Array(items) if items.is_empty() => "[]".to_string(),
        other => other.to_string(),
    }
}

fn is_block(value: &Value) -> bool {
    match value {
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => false,
    }
}

fn key(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if plain {
        text.to_string()
    } else {
        Value::from(text).to_string()
    }
}

fn block(value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if is_block(v) {
                    out.push_str(&format!("{pad}{}:\n", key(k)));
                    block(v, indent + 2, out);
                } else {
                    out.push_str(&format!("{pad}{}: {}\n", key(k), scalar(v)));
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if is_block(item) {
                    // the item's first line after "- ", the others under it
                    let mut inner = String::new();
                    block(item, indent + 2, &mut inner);
                    out.push_str(&pad);
                    out.push_str("- ");
                    out.push_str(&inner[indent + 2..]);
                } else {
                    out.push_str(&format!("{pad}- {}\n", scalar(item)));
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn tree() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn job_of(arch: &str) -> Result<(Value, Value), String> {
        let table = crate::arch_table::ArchTable::load(None, &tree()).expect("table");
        let spec = table.get(arch).expect("arch");
        let boot = spec.boot_command(&tree()).expect("readme");
        let args = boot.launch_args("rusttest x=1", &[], Path::new("/s"));
        job_and_device(spec, &boot, &args, &ImagesAt("file:///img".into()))
    }

    #[test]
    fn riscv64_job_boots_what_the_harness_boots() {
        let (job, device) = job_of("riscv64").expect("a QEMU arch");
        let context = &job["context"];
        assert_eq!(context["arch"], "riscv64");
        assert_eq!(context["no_kvm"], true);
        assert_eq!(context["memory"], 512);
        assert_eq!(context["machine"], "virt");
        assert_eq!(context["cpu"], "rv64");
        assert_eq!(
            context["extra_options"],
            json!(["-bios default", "-smp 2", "-no-reboot", "-snapshot"])
        );
        let images = &job["actions"][0]["deploy"]["images"];
        assert_eq!(images["kernel"]["url"], "file:///img/Image");
        let kernel_arg = images["kernel"]["image_arg"].as_str().expect("text");
        assert!(
            kernel_arg.starts_with("-kernel {kernel} -append \"root=/dev/vda"),
            "{kernel_arg}"
        );
        assert!(kernel_arg.ends_with(" rusttest x=1\""), "{kernel_arg}");
        assert_eq!(
            images["rootfs"]["image_arg"],
            "-drive file={rootfs},format=raw,id=hd0,if=none -device virtio-blk-device,drive=hd0"
        );
        assert_eq!(images["dtb"]["image_arg"], "-dtb {dtb}");
        assert_eq!(
            job["timeouts"]["connections"]["lava-test-monitor"]["minutes"],
            4
        );
        let params = &device["actions"]["boot"]["methods"]["qemu"]["parameters"];
        assert_eq!(params["command"], "qemu-system-riscv64");
        assert_eq!(params["options"][0], "-machine virt");
        assert_eq!(params["extra"], context["extra_options"]);
    }

    #[test]
    fn x86_64_puts_machine_and_cpu_in_the_extra_options() {
        let (job, device) = job_of("x86_64").expect("a QEMU arch");
        let extra = &job["context"]["extra_options"];
        assert_eq!(extra[0], "-machine pc");
        assert_eq!(extra[1], "-cpu max");
        assert!(job["context"].get("machine").is_none());
        assert!(job["actions"][0]["deploy"]["images"].get("dtb").is_none());
        assert_eq!(
            device["actions"]["boot"]["methods"]["qemu"]["parameters"]["options"][0],
            "-nographic"
        );
    }

    #[test]
    fn every_qemu_arch_has_a_job_and_um_says_why_not() {
        let table = crate::arch_table::ArchTable::load(None, &tree()).expect("table");
        for spec in &table.arches {
            let result = job_of(&spec.name);
            if spec.name == "um" {
                let err = result.expect_err("um");
                assert!(err.contains("no LAVA device"), "{err}");
            } else {
                assert!(result.is_ok(), "{}: {result:?}", spec.name);
            }
        }
    }

    #[test]
    fn yaml_is_block_style_with_quoted_strings() {
        let value = json!({"a": {"b": [1, {"c": "x y", "not ok": null}], "e": []}, "-k": "v"});
        assert_eq!(
            yaml(&value),
            "\"-k\": \"v\"\na:\n  b:\n    - 1\n    - c: \"x y\"\n      \"not ok\": null\n  e: []\n"
        );
    }
}
