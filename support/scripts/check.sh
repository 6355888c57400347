#!/bin/sh
# The project's test command (make check): lint, the harness's unit tests,
# every defconfig built and booted in QEMU with all boot tests. Each step
# is a check; the last line counts them with the harness's own tests:
# "check: N passed, N failed". Exit 0 only if all passed.
set -eu

cd "$(dirname "$0")/../.."
defconfigs=${DEFCONFIGS:-"qemu_x86_64_rust_defconfig qemu_riscv64_rust_defconfig"}
logs=output/logs
mkdir -p "$logs"
passed=0
failed=0

# step NAME COMMAND...: run a check, its output to $logs/NAME.log
step() {
	name=$1
	shift
	start=$(date +%s)
	if "$@" >"$logs/$name.log" 2>&1; then
		passed=$((passed + 1))
		printf 'ok   %s (%ss)\n' "$name" "$(($(date +%s) - start))"
	else
		failed=$((failed + 1))
		printf 'FAIL %s (%ss), last lines of %s:\n' "$name" "$(($(date +%s) - start))" "$logs/$name.log"
		tail -n 30 "$logs/$name.log" | sed 's/^/     | /'
	fi
}

step lint support/scripts/lint.sh
step harness-unit-tests cargo test --release --workspace
runner_unit_tests() {
	make -C package/rust-tests/src test
	set -- $?
	make -C package/rust-tests/src clean
	return "$1"
}
step runner-unit-tests runner_unit_tests
for d in $defconfigs; do
	step "build-$d" sh -c "make $d && make"
	# samples/rust/hostprogs: a Rust host program built by Kbuild, run here
	step "hostprogs-$d" sh -c "output/$d/build/linux-custom/samples/rust/hostprogs/single |
		tr '\n' '|' | grep -qx 'Hello world!|The number is 42.|'"
done

# Boot every image and run the tests (the harness prints one line per test).
set +e
cargo run -q --release -p rust-qemu-test -- run | tee "$logs/boot-tests.log"
harness_rc=$?
set -e
counts=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$logs/boot-tests.log" | tail -n1)
if [ -z "$counts" ]; then
	echo "FAIL boot-tests: the harness printed no result line (exit $harness_rc)"
	failed=$((failed + 1))
else
	passed=$((passed + ${counts% *}))
	failed=$((failed + ${counts#* }))
	[ "$harness_rc" -eq 0 ] || [ "${counts#* }" -gt 0 ] || failed=$((failed + 1))
fi
# The harness's failure paths on a real QEMU (its tests cover them on
# recorded consoles): a kernel panic and a hung guest must give exit 2,
# naming the reason.
# expect_failure REASON ARGS...: the harness exits 2 and prints REASON
expect_failure() {
	reason=$1
	shift
	rc=0
	out=$(cargo run -q --release -p rust-qemu-test -- run --arch x86_64 "$@" 2>&1) || rc=$?
	printf '%s\n' "$out"
	[ "$rc" -eq 2 ] || { echo "expected exit 2, got $rc"; return 1; }
	case $out in *"$reason"*) ;; *) echo "no '$reason' in the output"; return 1 ;; esac
}
step real-qemu-panic-detected expect_failure 'infrastructure failure (kernel-panic)' \
	--results-dir output/tests-failure/panic --kernel-arg root=/dev/nosuchdisk --kernel-arg rootwait=0
step real-qemu-hang-detected expect_failure 'infrastructure failure (boot-timeout)' \
	--results-dir output/tests-failure/hang --kernel-arg init=/bin/sh --timeout-multiplier 0.1

echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
