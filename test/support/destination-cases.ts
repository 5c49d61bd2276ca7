/**
 * URLs and what the destination policy (src/net/destination.ts) says of each, shared by the Node test
 * (test/node/destination.test.ts) and the workerd one (test/api/destinations.test.ts): the policy
 * relies on the runtime's URL parser to normalise numeric IPv4 forms and IPv6, so both runtimes must
 * read every spelling alike.
 */

/**
 * Loopback in every spelling: refused under the production setting, accepted in local development.
 * Each is 127.0.0.1 (or ::1) written another way; WHATWG URL parsing turns the numeric forms into
 * dotted decimal before the policy looks.
 */
export const LOOPBACK_SPELLINGS: string[] = [
  "http://127.0.0.1/",
  "http://2130706433/", // 127·2^24 + 1
  "http://0x7f000001/",
  "http://0177.0.0.1/", // octal 0177 = 127
  "http://127.1/", // a.b: b fills the last three octets
  "http://0x7f.1/",
  "http://127.000.000.001/",
  "http://127.0.0.1./",
  "http://%31%32%37.0.0.1/", // percent-encoded digits
  "http://\uFF11\uFF12\uFF17.0.0.1/", // full-width digits
  "http://LOCALHOST/",
  "http://localhost./",
  "http://api.localhost/",
  "http://[::1]/",
  "http://[0:0:0:0:0:0:0:1]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:7f00:1]/",
  "http://[::127.0.0.1]/", // deprecated IPv4-compatible form
  "http://[64:ff9b::127.0.0.1]/", // NAT64
  "http://[2002:7f00:1::]/", // 6to4 of 127.0.0.1,
];

export const LOOPBACK_REFUSED = "loopback addresses are accepted only in local development";

/** Refused whatever the setting, with the message a 400 gives under the field's path. */
export const REFUSED_HOSTS: [url: string, message: string][] = [
  ["https://10.0.0.1/", "private address 10.0.0.1 is not allowed"],
  ["https://10.255.255.255/", "private address 10.255.255.255 is not allowed"],
  ["https://172.16.0.1/", "private address 172.16.0.1 is not allowed"],
  ["https://172.31.255.255/", "private address 172.31.255.255 is not allowed"],
  ["https://192.168.1.10/", "private address 192.168.1.10 is not allowed"],
  ["https://100.64.0.1/", "private address 100.64.0.1 is not allowed"], // CGNAT 100.64/10
  ["https://100.127.255.255/", "private address 100.127.255.255 is not allowed"],
  ["https://198.18.0.1/", "private address 198.18.0.1 is not allowed"],
  ["https://169.254.1.1/", "link-local address 169.254.1.1 is not allowed"],
  ["https://169.254.169.254/latest/meta-data", "metadata address 169.254.169.254 is not allowed"],
  ["http://0xa9fea9fe/", "metadata address 169.254.169.254 is not allowed"], // 0xa9fea9fe = 169.254.169.254
  ["https://100.100.100.200/", "metadata address 100.100.100.200 is not allowed"],
  ["https://0.0.0.0/", "unspecified address 0.0.0.0 is not allowed"],
  ["https://0/", "unspecified address 0.0.0.0 is not allowed"],
  ["http://0.0.0.0:8787/v1", "unspecified address 0.0.0.0 is not allowed"],
  ["https://[::]/", "unspecified address :: is not allowed"],
  ["https://[fd00::1]/", "private address fd00::1 is not allowed"],
  ["https://[fc00::1]/", "private address fc00::1 is not allowed"],
  ["https://[fd00:ec2::254]/", "metadata address fd00:ec2::254 is not allowed"],
  ["https://[fe80::1]/", "link-local address fe80::1 is not allowed"],
  ["https://[febf::1]/", "link-local address febf::1 is not allowed"],
  ["https://[ff02::1]/", "reserved address ff02::1 is not allowed"],
  ["https://[::ffff:10.0.0.1]/", "private address ::ffff:a00:1 (10.0.0.1) is not allowed"],
  ["https://[::ffff:169.254.169.254]/", "metadata address ::ffff:a9fe:a9fe (169.254.169.254) is not allowed"],
  ["https://[::ffff:0.0.0.0]/", "unspecified address ::ffff:0:0 (0.0.0.0) is not allowed"],
  ["https://224.0.0.1/", "reserved address 224.0.0.1 is not allowed"],
  ["https://255.255.255.255/", "reserved address 255.255.255.255 is not allowed"],
  ["https://metadata.google.internal/computeMetadata/v1/", "metadata host metadata.google.internal is not allowed"],
  ["https://METADATA.GOOGLE.INTERNAL./", "metadata host metadata.google.internal is not allowed"],
  ["http://metadata/", "metadata host metadata is not allowed"],
  ["http://instance-data/latest", "metadata host instance-data is not allowed"],
  ["https://intranet/", "local host name intranet is not allowed: use a public host name"],
  ["https://db.internal/", "local host name db.internal is not allowed: use a public host name"],
  ["https://printer.local/", "local host name printer.local is not allowed: use a public host name"],
  ["https://nas.home.arpa/", "local host name nas.home.arpa is not allowed: use a public host name"],
];

/** Refused for their text (model endpoints: http or https), whatever the setting. */
export const REFUSED_TEXT: [url: string, message: string][] = [
  ["", "must not be empty"],
  ["   ", "must not be empty"],
  ["not a url", "must be an absolute URL"],
  ["http://256.256.256.256/", "must be an absolute URL"],
  ["gopher://127.0.0.1:25/x", "must use http or https"],
  ["file:///etc/passwd", "must use http or https"],
  ["ftp://api.example.com/", "must use http or https"],
  ["javascript:alert(1)", "must use http or https"],
  ["http://user:secret@api.example.com/v1", "must not contain credentials"],
  ["http://user@api.example.com/v1", "must not contain credentials"],
  ["http://:secret@127.0.0.1:8000/v1", "must not contain credentials"],
  ["https://api.example.com/v1?api_key=sk-123", "must not carry credentials in its query string (api_key)"],
  [
    "https://api.example.com/v1?x=1&API-KEY=a&token=b",
    "must not carry credentials in its query string (API-KEY, token)",
  ],
  ["https://hooks.example.com/h?accessToken=abc", "must not carry credentials in its query string (accessToken)"],
];
