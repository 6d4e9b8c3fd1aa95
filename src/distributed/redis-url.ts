/**
 * The `--queue` URL: where the Redis server that carries dsgkit's jobs is.
 *
 * `redis://[[user]:password@]host[:port][/db]` for a plain connection,
 * `rediss://…` for TLS (the system's CA store checks the server's
 * certificate; `NODE_EXTRA_CA_CERTS` adds a private CA). The password never
 * appears in messages: {@link QueueUrl.shown} hides it.
 */
import { UsageError } from '../errors.ts';

/** Connection options for ioredis, and the URL as messages show it. */
export interface QueueUrl {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  /** TLS options (`rediss://`); absent for a plain connection. */
  readonly tls?: { servername?: string };
  /** The URL with the password replaced by `***`, for messages. */
  readonly shown: string;
}

/**
 * Parses a `--queue` URL; a UsageError names what is wrong.
 *
 * @example
 * parseQueueUrl('redis://:s3cret@10.0.0.5:6380/2'); // { host: '10.0.0.5', port: 6380, db: 2, password: 's3cret', shown: 'redis://:***@10.0.0.5:6380/2' }
 * parseQueueUrl('rediss://queue.example.org').tls;   // { servername: 'queue.example.org' }
 */
export function parseQueueUrl(text: string, option = 'queue'): QueueUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--${option} must be a Redis URL such as redis://HOST:6379 or rediss://:PASSWORD@HOST:6380/0, got '${text}'`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new UsageError(`--${option} must start with redis:// or rediss:// (TLS), got '${url.protocol}//…'`);
  }
  if (url.hostname === '') throw new UsageError(`--${option} has no host: '${text}'`);
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  if (!/^\d*$/.test(path)) throw new UsageError(`--${option}: the path must be a database number (e.g. /0), got '/${path}'`);
  const db = path === '' ? 0 : Number(path);
  if (url.search !== '' || url.hash !== '') throw new UsageError(`--${option}: no query or fragment is understood, got '${url.search}${url.hash}'`);
  const username = url.username !== '' ? decodeURIComponent(url.username) : undefined;
  const password = url.password !== '' ? decodeURIComponent(url.password) : undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const tls = url.protocol === 'rediss:' ? { servername: host } : undefined;
  const auth = username !== undefined || password !== undefined ? `${url.username}${password !== undefined ? ':***' : ''}@` : '';
  const shown = `${url.protocol}//${auth}${url.host}${path === '' ? '' : `/${db}`}`;
  return { host, port, db, ...(username !== undefined ? { username } : {}), ...(password !== undefined ? { password } : {}), ...(tls ? { tls } : {}), shown };
}
