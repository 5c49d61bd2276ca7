/**
 * What kind of network an IP address literal belongs to, for the destination policy (destination.ts).
 * It reads the host of a URL that WHATWG `new URL()` has already parsed: that parser turns every
 * numeric IPv4 spelling (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`, `0`, a trailing dot,
 * percent-encoded or full-width digits) into dotted decimal, and writes IPv6 in its canonical
 * compressed hex form, which is exactly what `fetch` then connects to. So only those two forms need
 * to be understood here; anything else is a hostname.
 */

export type AddressKind = "public" | "loopback" | "private" | "link-local" | "unspecified" | "metadata" | "reserved";

/** The kind of an address, and the IPv4 address it carries when an IPv6 form embeds one. */
export type AddressClass = { kind: AddressKind; ipv4?: string };

/**
 * Cloud instance-metadata services (AWS, GCP, Azure, OpenStack: 169.254.169.254; AWS ECS task
 * metadata; Alibaba Cloud; Oracle Cloud). Each already falls in a refused range; naming them makes
 * the refusal say what the address is.
 */
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192"]);

/** AWS's IPv6 instance-metadata address fd00:ec2::254 (inside fc00::/7, named for the same reason). */
const METADATA_V6 = [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254];

/** Dotted-decimal IPv4 (the only IPv4 form a parsed URL's host has) as four octets, else null. */
export function parseIPv4(text: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** IPv4 ranges, most specific first; the first that contains the address decides. */
const V4_RANGES: [prefix: number[], bits: number, kind: AddressKind][] = [
  [[0, 0, 0, 0], 8, "unspecified"], // "this network"; 0.0.0.0 reaches the local host on many systems
  [[10, 0, 0, 0], 8, "private"],
  [[100, 64, 0, 0], 10, "private"], // shared address space (carrier-grade NAT)
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local"],
  [[172, 16, 0, 0], 12, "private"],
  [[192, 0, 0, 0], 24, "reserved"], // IETF protocol assignments
  [[192, 168, 0, 0], 16, "private"],
  [[198, 18, 0, 0], 15, "private"], // network benchmarking
  [[224, 0, 0, 0], 4, "reserved"], // multicast
  [[240, 0, 0, 0], 4, "reserved"], // future use, and the broadcast address
];

function inPrefix(octets: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < 4 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((octets[i] & mask) !== (prefix[i] & mask)) return false;
  }
  return true;
}

export function classifyIPv4(octets: number[]): AddressKind {
  if (METADATA_V4.has(octets.join("."))) return "metadata";
  for (const [prefix, bits, kind] of V4_RANGES) if (inPrefix(octets, prefix, bits)) return kind;
  return "public";
}

/** An IPv6 literal (without brackets) as eight 16-bit groups, else null. Accepts `::` and a dotted IPv4 tail. */
export function parseIPv6(text: string): number[] | null {
  let s = text.toLowerCase();
  let tail: number[] = [];
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]);
    if (!v4) return null;
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    s = s.slice(0, -dotted[1].length);
    if (s.endsWith(":") && !s.endsWith("::")) s = s.slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const words = [...head, ...rest];
  if (!words.every((w) => /^[0-9a-f]{1,4}$/.test(w))) return null;
  const missing = 8 - words.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const fill = halves.length === 2 ? new Array<number>(missing).fill(0) : [];
  return [...head.map((w) => parseInt(w, 16)), ...fill, ...rest.map((w) => parseInt(w, 16)), ...tail];
}

const v4Of = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/**
 * IPv6 ranges. The forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, the deprecated
 * compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` and 6to4 `2002:AABB:CCDD::`)
 * are judged by that address, so `[::ffff:7f00:1]` is loopback like 127.0.0.1.
 */
export function classifyIPv6(g: number[]): AddressClass {
  const zeros = (from: number, to: number) => g.slice(from, to).every((w) => w === 0);
  const embedded = (hi: number, lo: number): AddressClass => {
    const v4 = v4Of(hi, lo);
    return { kind: classifyIPv4(v4), ipv4: v4.join(".") };
  };
  if (zeros(0, 8)) return { kind: "unspecified" };
  if (zeros(0, 7) && g[7] === 1) return { kind: "loopback" };
  if (zeros(0, 5) && g[5] === 0xffff) return embedded(g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return embedded(g[6], g[7]);
  if (zeros(0, 6)) return embedded(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embedded(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return { kind: "private" }; // local-use NAT64
  if (g[0] === 0x2002) return embedded(g[1], g[2]);
  if (g.every((w, i) => w === METADATA_V6[i])) return { kind: "metadata" };
  if ((g[0] & 0xfe00) === 0xfc00) return { kind: "private" }; // unique local fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80) return { kind: "link-local" };
  if ((g[0] & 0xffc0) === 0xfec0) return { kind: "private" }; // site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return { kind: "reserved" }; // multicast
  if (g[0] === 0x100 && zeros(1, 4)) return { kind: "reserved" }; // discard-only
  return { kind: "public" };
}

/** The class of a parsed URL's `hostname` if it is an IP literal (`1.2.3.4` or `[…]`), else null (a name). */
export function classifyHostAddress(hostname: string): AddressClass | null {
  const v4 = parseIPv4(hostname);
  if (v4) return { kind: classifyIPv4(v4) };
  if (hostname.startsWith("[") && hostname.endsWith("]")) {
    const v6 = parseIPv6(hostname.slice(1, -1));
    // The URL parser accepted it, so this parses; if it ever did not, refusing is the safe answer.
    return v6 ? classifyIPv6(v6) : { kind: "reserved" };
  }
  return null;
}
