import { imapOptions } from './imap-poller';

describe('imapOptions', () => {
  it('imaps: TLS from the start, port 993 by default; credentials percent-decoded', () => {
    expect(imapOptions('imaps://out%40acme.test:p%40ss%3Aw%2Fd@imap.acme.test')).toEqual({
      host: 'imap.acme.test', port: 993, secure: true, auth: { user: 'out@acme.test', pass: 'p@ss:w/d' },
    });
  });
  it('imap: port 143 by default, an explicit port kept, IPv6 literals unbracketed', () => {
    expect(imapOptions('imap://u:p@127.0.0.1')).toMatchObject({ host: '127.0.0.1', port: 143, secure: false });
    expect(imapOptions('imap://u:p@[::1]:1143')).toMatchObject({ host: '::1', port: 1143, secure: false });
  });
  it('refuses other schemes and a URL without a user name', () => {
    expect(() => imapOptions('pop3://u:p@host')).toThrow(/scheme/);
    expect(() => imapOptions('imaps://host:993')).toThrow(/user name/);
  });
});
