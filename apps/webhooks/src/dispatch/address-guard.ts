import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Ranges a webhook may never reach: private, loopback, link-local, metadata, and other special-purpose ones. */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv6');

/** Whether an address is one a webhook must not reach (IPv4-mapped IPv6 is judged as IPv4). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class BlockedAddressError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for https.request that refuses blocked addresses unless the host (or the address)
 * is allow-listed. It judges the addresses actually connected to, so DNS rebinding between a
 * check and the connection cannot slip through.
 */
export function guardedLookup(allowed: Set<string>) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { family: options.family ?? 0, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      const hostAllowed = allowed.has(hostname.toLowerCase());
      const usable = addresses.filter((a) => hostAllowed || allowed.has(a.address) || !isBlockedAddress(a.address));
      if (usable.length === 0) {
        return callback(new BlockedAddressError(`${hostname} resolves to a private or reserved address`), options.all ? [] : '');
      }
      if (options.all) return callback(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}

/** For a URL whose host is an IP literal (no lookup happens): whether it may be reached. */
export function literalAllowed(host: string, allowed: Set<string>): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(bare) === 0) return true;
  return allowed.has(bare) || !isBlockedAddress(bare);
}
