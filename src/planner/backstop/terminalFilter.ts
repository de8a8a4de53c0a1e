// The seccomp filter a confined turn runs under (`wave-scope run --confine`): it refuses the two ioctls
// that let a process type into the terminal it shares with the person, TIOCSTI (push a character into
// the terminal's input, read next by the person's shell, outside the sandbox) and TIOCLINUX (the Linux
// console's selection paste, the same through another door). A sandboxed command keeps the person's
// terminal as its stdin, so without this filter `ioctl(0, TIOCSTI, …)` for each character of a command
// line runs that command as the person once the turn ends (found by red-team review, 2026-12-06; the
// known bubblewrap weakness CVE-2017-5226, closed in kernels whose `dev.tty.legacy_tiocsti` is 0).
// bubblewrap's own `--new-session` closes it too, but takes the command out of the terminal's foreground
// process group: an interactive agent CLI would no longer get the terminal's signals (a resize, say).
//
// bubblewrap loads the program given with `--seccomp FD`: classic BPF over `struct seccomp_data` (the
// syscall number at offset 0, the audit architecture at 4, the arguments from 16, eight bytes each), as an
// array of `struct sock_filter` (u16 code, u8 jt, u8 jf, u32 k, in the machine's byte order). Every other
// system call, and every other ioctl, is allowed. The program knows the ioctl numbers of the architectures
// a process of this machine can run as (x86-64 with its i386 and x32 ABIs; arm64 with 32-bit arm): any other
// architecture ends the process (SECCOMP_RET_KILL_PROCESS), so a binary of an unknown ABI cannot slip by.

/** The architectures a filter is built for, by Node's `process.arch`, with each ABI's ioctl numbers. */
const ABIS: Readonly<Record<string, ReadonlyArray<{ audit: number; ioctl: readonly number[] }>>> = {
  x64: [
    // x86-64 (AUDIT_ARCH_X86_64); x32 system calls set bit 30 of the number (ioctl is its 514, and 16 is
    // refused as an x32 call by the kernel but named all the same).
    { audit: 0xc000003e, ioctl: [16, 0x40000000 + 514, 0x40000000 + 16] },
    // i386 (AUDIT_ARCH_I386).
    { audit: 0x40000003, ioctl: [54] },
  ],
  arm64: [
    // AArch64 (AUDIT_ARCH_AARCH64) and 32-bit arm EABI (AUDIT_ARCH_ARM).
    { audit: 0xc00000b7, ioctl: [29] },
    { audit: 0x40000028, ioctl: [54] },
  ],
};

/** The ioctl requests refused (asm-generic numbers, the same on every architecture above). */
export const REFUSED_IOCTLS: ReadonlyArray<{ name: string; request: number }> = [
  { name: 'TIOCSTI', request: 0x5412 },
  { name: 'TIOCLINUX', request: 0x541c },
];

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_IF_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const RETURN = 0x06; // BPF_RET | BPF_K
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
/** SECCOMP_RET_ERRNO with EPERM: the ioctl fails as if not permitted. */
export const SECCOMP_RET_EPERM = 0x00050000 | 1;

/** Offsets into `struct seccomp_data` (little-endian machines: the low half of an argument comes first). */
export const SECCOMP_DATA = { nr: 0, arch: 4, argument: (index: number) => 16 + 8 * index } as const;

interface Instruction {
  code: number;
  k: number;
  /** For a jump: the labels it goes to when equal and when not (undefined: the next instruction). */
  ifEqual?: string;
  ifNot?: string;
  label?: string;
}

/** Whether a filter can be built for `arch` (Node's `process.arch`). */
export function hasTerminalFilter(arch: string): boolean {
  return ABIS[arch] !== undefined;
}

/**
 * The filter for a process of `arch` (Node's `process.arch`), as the bytes bubblewrap reads; undefined
 * for an architecture whose numbers are not known here (confinement then stops rather than run without it).
 */
export function terminalFilter(arch: string, littleEndian = true): Uint8Array | undefined {
  const abis = ABIS[arch];
  if (abis === undefined || !littleEndian) return undefined;
  const program: Instruction[] = [{ code: LOAD_WORD, k: SECCOMP_DATA.arch }];
  abis.forEach((abi, index) => program.push({ code: JUMP_IF_EQUAL, k: abi.audit, ifEqual: `abi${index}` }));
  program.push({ code: RETURN, k: SECCOMP_RET_KILL_PROCESS });
  abis.forEach((abi, index) => {
    program.push({ code: LOAD_WORD, k: SECCOMP_DATA.nr, label: `abi${index}` });
    for (const number of abi.ioctl) program.push({ code: JUMP_IF_EQUAL, k: number, ifEqual: 'request' });
    program.push({ code: RETURN, k: SECCOMP_RET_ALLOW });
  });
  // The request is an unsigned int: the kernel reads only the argument's low 32 bits.
  program.push({ code: LOAD_WORD, k: SECCOMP_DATA.argument(1), label: 'request' });
  for (const { request } of REFUSED_IOCTLS) program.push({ code: JUMP_IF_EQUAL, k: request, ifEqual: 'refuse' });
  program.push({ code: RETURN, k: SECCOMP_RET_ALLOW });
  program.push({ code: RETURN, k: SECCOMP_RET_EPERM, label: 'refuse' });
  return assemble(program);
}

function assemble(program: readonly Instruction[]): Uint8Array {
  const at = new Map(program.flatMap((instruction, index) => (instruction.label === undefined ? [] : [[instruction.label, index] as const])));
  const offset = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0;
    const target = at.get(label);
    // Classic BPF jumps only forward, at most 255 instructions.
    if (target === undefined || target <= from || target - from - 1 > 255) throw new Error(`bad jump to ${label}`);
    return target - from - 1;
  };
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach((instruction, index) => {
    view.setUint16(index * 8, instruction.code, true);
    view.setUint8(index * 8 + 2, offset(index, instruction.ifEqual));
    view.setUint8(index * 8 + 3, offset(index, instruction.ifNot));
    view.setUint32(index * 8 + 4, instruction.k >>> 0, true);
  });
  return bytes;
}
