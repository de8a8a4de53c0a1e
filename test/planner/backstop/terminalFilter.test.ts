// The seccomp program of a confined turn, run by a small classic-BPF interpreter over `struct
// seccomp_data` as the kernel lays it out: the refused ioctls of every ABI a process of the machine can
// run as, and nothing else. (test/cli/runConfine.test.ts shows the real kernel loading it.)
import assert from 'node:assert/strict';
import { hasTerminalFilter, REFUSED_IOCTLS, SECCOMP_DATA, SECCOMP_RET_ALLOW, SECCOMP_RET_EPERM, SECCOMP_RET_KILL_PROCESS, terminalFilter } from '../../../src/planner/backstop/terminalFilter';

/** Runs `program` on one system call; what it returns (a SECCOMP_RET_* value). */
function verdict(program: Uint8Array, call: { arch: number; nr: number; args?: bigint[] }): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(SECCOMP_DATA.nr, call.nr, true);
  data.setUint32(SECCOMP_DATA.arch, call.arch, true);
  (call.args ?? []).forEach((value, index) => data.setBigUint64(SECCOMP_DATA.argument(index), value, true));
  const code = new DataView(program.buffer, program.byteOffset, program.byteLength);
  let accumulator = 0;
  for (let pc = 0; pc < program.length / 8; ) {
    const op = code.getUint16(pc * 8, true);
    const jt = code.getUint8(pc * 8 + 2);
    const jf = code.getUint8(pc * 8 + 3);
    const k = code.getUint32(pc * 8 + 4, true);
    if (op === 0x20) {
      accumulator = data.getUint32(k, true);
      pc += 1;
    } else if (op === 0x15) pc += 1 + (accumulator === k ? jt : jf);
    else if (op === 0x06) return k;
    else throw new Error(`unexpected opcode ${op.toString(16)} at ${pc}`);
  }
  throw new Error('the program ran off its end');
}

const X86_64 = 0xc000003e;
const I386 = 0x40000003;
const AARCH64 = 0xc00000b7;
const ARM = 0x40000028;
const TIOCSTI = 0x5412n;
const TIOCLINUX = 0x541cn;
const TCGETS = 0x5401n;

describe('backstop: the seccomp filter of a confined turn (terminal injection)', () => {
  const x64 = terminalFilter('x64') as Uint8Array;
  const arm64 = terminalFilter('arm64') as Uint8Array;

  it('refuses TIOCSTI and TIOCLINUX on every ABI of the machine, and allows any other ioctl', () => {
    assert.deepEqual(REFUSED_IOCTLS.map((ioctl) => ioctl.name), ['TIOCSTI', 'TIOCLINUX']);
    const cases: Array<[Uint8Array, number, number]> = [
      [x64, X86_64, 16],
      [x64, X86_64, 0x40000000 + 514],
      [x64, I386, 54],
      [arm64, AARCH64, 29],
      [arm64, ARM, 54],
    ];
    for (const [program, arch, ioctl] of cases) {
      const label = `arch ${arch.toString(16)} ioctl ${ioctl}`;
      assert.equal(verdict(program, { arch, nr: ioctl, args: [0n, TIOCSTI] }), SECCOMP_RET_EPERM, label);
      assert.equal(verdict(program, { arch, nr: ioctl, args: [0n, TIOCLINUX] }), SECCOMP_RET_EPERM, label);
      assert.equal(verdict(program, { arch, nr: ioctl, args: [0n, TCGETS] }), SECCOMP_RET_ALLOW, label);
      // The request is an unsigned int: bits above it do not hide it.
      assert.equal(verdict(program, { arch, nr: ioctl, args: [0n, (0xffffn << 32n) | TIOCSTI] }), SECCOMP_RET_EPERM, label);
    }
  });

  it('allows every other system call, even with TIOCSTI as its second argument', () => {
    for (const nr of [0, 1, 2, 59, 257]) assert.equal(verdict(x64, { arch: X86_64, nr, args: [0n, TIOCSTI] }), SECCOMP_RET_ALLOW, `x86-64 call ${nr}`);
    assert.equal(verdict(arm64, { arch: AARCH64, nr: 64, args: [0n, TIOCSTI] }), SECCOMP_RET_ALLOW);
  });

  it('ends a process of an architecture it was not built for, and is not built for an unknown one', () => {
    assert.equal(verdict(x64, { arch: AARCH64, nr: 29, args: [0n, TIOCSTI] }), SECCOMP_RET_KILL_PROCESS);
    assert.equal(verdict(arm64, { arch: X86_64, nr: 16, args: [0n, TIOCSTI] }), SECCOMP_RET_KILL_PROCESS);
    assert.equal(terminalFilter('riscv64'), undefined);
    assert.equal(terminalFilter('x64', false), undefined, 'a big-endian layout is not built');
    assert.equal(hasTerminalFilter('x64') && hasTerminalFilter('arm64') && !hasTerminalFilter('s390x'), true);
  });
});
