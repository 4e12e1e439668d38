import "server-only";

import { getEnv } from "@/lib/config/env";

import type { SearchEngine } from "./engine";
import { meilisearchEngine } from "./meilisearch";
import { postgresEngine } from "./postgres";

/** The configured engine: Meilisearch when MEILISEARCH_URL is set, else PostgreSQL full-text search. */
export const getSearchEngine = (): SearchEngine =>
  getEnv().MEILISEARCH_URL ? meilisearchEngine() : postgresEngine;
