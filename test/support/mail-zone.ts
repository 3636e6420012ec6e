import { Zone } from '../../tools/mesh/mail-peers';

export const MAIL_ZONE: Zone = {
  mx: { 'good.test': ['mx.good.test'], 'catchall.test': ['mx.catchall.test'], 'mailinator.com': ['mx.good.test'] },
  a: { 'mx.good.test': '127.0.0.1', 'mx.catchall.test': '127.0.0.1', 'aonly.test': '127.0.0.1' },
};
