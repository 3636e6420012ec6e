import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CertificateFiles {
  cert: string;
  key: string;
}

export interface PrivateCa {
  dir: string;
  /** The CA's certificate (PEM file): what clients and servers trust. */
  caFile: string;
  /** A server certificate for the names given (`localhost` by default), and 127.0.0.1 unless `loopbackIp` is false. */
  server: CertificateFiles;
  /** A client certificate whose common name is `clientName` (PostgreSQL maps it to the user). */
  client: CertificateFiles;
  /** A certificate of the same names from another CA: right names, wrong issuer. */
  stranger: CertificateFiles & { caFile: string };
  remove(): void;
}

/**
 * A certificate authority of the test's own, made with the system's `openssl` in a temp dir
 * (EC P-256: fast to make), with a server and a client certificate it signed.
 */
export function makePrivateCa(options: { serverNames?: string[]; loopbackIp?: boolean; clientName?: string } = {}): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'private-ca-'));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const authority = (name: string) => {
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', `/CN=${name}`,
      '-keyout', path(`${name}.key`), '-out', path(`${name}.crt`), '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    return { cert: path(`${name}.crt`), key: path(`${name}.key`) };
  };
  const issue = (ca: CertificateFiles, name: string, commonName: string, extensions: string) => {
    writeFileSync(path(`${name}.ext`), extensions);
    openssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${commonName}`, '-keyout', path(`${name}.key`), '-out', path(`${name}.csr`));
    openssl('x509', '-req', '-in', path(`${name}.csr`), '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-extfile', path(`${name}.ext`), '-out', path(`${name}.crt`));
    return { cert: path(`${name}.crt`), key: path(`${name}.key`) };
  };
  const names = options.serverNames ?? ['localhost'];
  const altNames = `subjectAltName=${[...names.map((n) => `DNS:${n}`), ...(options.loopbackIp === false ? [] : ['IP:127.0.0.1'])].join(',')}\n`;
  const ca = authority('test-ca');
  const other = authority('other-ca');
  const clientName = options.clientName ?? 'mesh-client';
  return {
    dir,
    caFile: ca.cert,
    server: issue(ca, 'server', names[0], `${altNames}extendedKeyUsage=serverAuth\n`),
    client: issue(ca, 'client', clientName, 'extendedKeyUsage=clientAuth\n'),
    stranger: { ...issue(other, 'stranger', clientName, `${altNames}extendedKeyUsage=clientAuth,serverAuth\n`), caFile: other.cert },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
