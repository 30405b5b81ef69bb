const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a uuid: every id of ours is one, so anything else names nothing (404). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
