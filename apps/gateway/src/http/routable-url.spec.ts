import { routableUrl } from './routable-url';

describe('routableUrl', () => {
  it.each([
    ['/api/v1/leads', '/api/v1/leads'],
    ['/api/v1/leads/lead_%41?x=%zz', '/api/v1/leads/lead_%41?x=%zz'],
    ['/api/v1/leads/%C3%A9', '/api/v1/leads/%C3%A9'],
  ])('leaves %s as it is', (url, expected) => expect(routableUrl(url)).toBe(expected));

  it.each([
    ['/api/v1/leads/%zz', '/api/v1/leads/%25zz'],
    ['/api/v1/leads/%4', '/api/v1/leads/%254'],
    ['/api/v1/leads/%', '/api/v1/leads/%25'],
    ['/api/v1/leads/%ff%41', '/api/v1/leads/%25ff%2541'],
    ['/api/v1/leads/%C3%A9/%zz?tag=%zz', '/api/v1/leads/%C3%A9/%25zz?tag=%zz'],
    ['/api/v1/leads%ED%A0%80', '/api/v1/leads%25ED%25A0%2580'],
  ])('escapes the stray percent signs of %s', (url, expected) => {
    expect(routableUrl(url)).toBe(expected);
    expect(() => decodeURI(routableUrl(url).split('?')[0])).not.toThrow();
  });
});
