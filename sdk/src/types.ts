/** A type's fields, shown as one object (an intersection or alias resolved) where editors show it. */
export type Prettify<T> = { [K in keyof T]: T[K] } & {};
