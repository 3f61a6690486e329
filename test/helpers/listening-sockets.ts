/**
 * The local addresses that listen on a TCP port, read from the kernel's socket tables
 * (/proc/net/tcp and tcp6, Linux), so a test can tell "loopback only" from "every interface"
 * without sending a packet to any other address.
 */
import { readFileSync } from 'node:fs';

const LISTEN = '0A';

/** `0100007F` → `127.0.0.1` (the table holds the address as a little-endian word). */
function ipv4(hex: string): string {
  return (hex.match(/../g) ?? [])
    .reverse()
    .map((byte) => parseInt(byte, 16))
    .join('.');
}

/** Four little-endian words → `::`, `::1` or eight hex groups. */
function ipv6(hex: string): string {
  const bytes = (hex.match(/.{8}/g) ?? []).flatMap((word) => (word.match(/../g) ?? []).reverse());
  const groups = (bytes.join('').match(/.{4}/g) ?? []).map((group) => parseInt(group, 16));
  if (groups.every((group) => group === 0)) return '::';
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) return '::1';
  return groups.map((group) => group.toString(16)).join(':');
}

export function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const [file, decode] of [
    ['/proc/net/tcp', ipv4],
    ['/proc/net/tcp6', ipv6],
  ] as const) {
    let table: string;
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue; // No IPv6 table on a kernel without IPv6.
    }
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== LISTEN) continue;
      const [address, portHex] = local.split(':');
      if (address && parseInt(portHex ?? '', 16) === port) found.push(decode(address));
    }
  }
  return found.sort();
}
