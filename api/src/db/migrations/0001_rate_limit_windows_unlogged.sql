-- Rate-limit counters need no durability: an unlogged table writes no WAL, so a hit costs no fsync.
ALTER TABLE "app"."rate_limit_windows" SET UNLOGGED;
