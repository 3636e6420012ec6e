import { lookup as dnsLookup, LookupAddress, Resolver } from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * What an attempt refused for its address records, whatever the reason: a literal that is not
 * public, a name that resolves to no public address, or a name that does not resolve at all. One
 * wording for all of them, so the deliveries list cannot be used to learn which internal names
 * exist or what they resolve to.
 */
export const NOT_PUBLIC_ADDRESS = 'refused: not a public address';

/** IPv6 global unicast (RFC 4291); everything outside it is loopback, local, embedded IPv4 or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Whether a webhook may reach `address`: a public unicast address. Judged by ipaddr.js's
 * classification of the IANA IPv4 and IPv6 special-purpose registries: only `unicast` passes,
 * and in IPv6 only within global unicast (2000::/3), which leaves out the deprecated
 * IPv4-compatible form (::a.b.c.d). Every form that embeds an IPv4 address (IPv4-mapped and
 * -translated, NAT64, 6to4, Teredo) is refused whatever it embeds: the address connected to is a
 * translator's or relay's, and the host it reaches is decided there, out of this guard's sight.
 * Any spelling ipaddr.js reads counts (`0x7f.1`, `2130706433`, `[::1]`); a string that is no
 * address at all is not public. A zone index (`fe80::1%eth0`) is only meaningful on a local link.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.range() !== 'unicast') return false;
  if (parsed.kind() === 'ipv4') return true;
  const v6 = parsed as ipaddr.IPv6;
  return v6.zoneId === undefined && v6.match(GLOBAL_UNICAST_V6);
}

/** Whether an address is one a webhook must not reach (the opposite of isPublicAddress). */
export function isBlockedAddress(address: string): boolean {
  return !isPublicAddress(address);
}

/** Whether a URL's host is an IP address (in any spelling) rather than a name to resolve. */
function isAddressLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}

export class BlockedAddressError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
  constructor() {
    super(NOT_PUBLIC_ADDRESS);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Resolve = (hostname: string, family: number) => Promise<LookupAddress[]>;

/** The system's resolver (getaddrinfo: hosts file, then DNS), as https.request resolves by default. */
const systemResolve: Resolve = (hostname, family) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { family, all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** Names asked of these DNS servers only (A and AAAA), never of the hosts file or the system's resolver. */
function serversResolve(servers: string[]): Resolve {
  const resolver = new Resolver();
  resolver.setServers(servers);
  const ask = (hostname: string, kind: 4 | 6): Promise<LookupAddress[]> =>
    new Promise((resolve) => {
      const done = (err: Error | null, addresses: string[]) => resolve(err ? [] : addresses.map((address) => ({ address, family: kind })));
      if (kind === 4) resolver.resolve4(hostname, done);
      else resolver.resolve6(hostname, done);
    });
  return async (hostname, family) => {
    const kinds: (4 | 6)[] = family === 4 ? [4] : family === 6 ? [6] : [4, 6];
    return (await Promise.all(kinds.map((kind) => ask(hostname, kind)))).flat();
  };
}

/**
 * A `lookup` for https.request that refuses addresses that are not public unless the host (or
 * the address) is allow-listed. It judges the addresses actually connected to, so DNS rebinding
 * between a check and the connection cannot slip through. A name that resolves to no public
 * address and a name that does not resolve fail alike (NOT_PUBLIC_ADDRESS). With `dnsServers`,
 * names are asked of those servers only.
 */
export function guardedLookup(allowed: Set<string>, dnsServers: string[] = []) {
  const resolve = dnsServers.length > 0 ? serversResolve(dnsServers) : systemResolve;
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    const refuse = () => callback(new BlockedAddressError(), options.all ? [] : '');
    resolve(hostname, options.family ?? 0).then(
      (addresses) => {
        const hostAllowed = allowed.has(hostname.toLowerCase());
        const usable = addresses.filter((a) => hostAllowed || allowed.has(a.address) || isPublicAddress(a.address));
        if (usable.length === 0) return refuse();
        if (options.all) return callback(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      refuse,
    );
  };
}

/** For a URL's host (`URL.hostname`): whether it may be reached without a lookup. A name is judged at connection instead. */
export function literalAllowed(host: string, allowed: Set<string>): boolean {
  if (!isAddressLiteral(host)) return true;
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return allowed.has(bare) || isPublicAddress(bare);
}
