import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { errorState } from "@/components/admin/error-state";
import { createAccount } from "@/lib/accounts/accounts";
import { setCryptoSettingsAs } from "@/lib/accounts/store-rails";
import { listProducts } from "@/lib/catalog/admin/list-products";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { createStore, CreateStoreSchema } from "@/lib/stores/create-store";
import { currencyOptions } from "@/lib/stores/currencies";
import { splitPosition } from "@/lib/stores/location-position";
import { runStoreAdminOp } from "@/lib/stores/store-admin-ops";

import { formField, productFromForm } from "../../../app/admin/stores/[store_slug]/catalog/product-form-data";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The admin's structured form inputs as the server takes them: image and attribute rows (blank rows skipped, a
// refusal named by its row in the form, nothing written), coins ticked as checkboxes (none ticked is refused in
// words), the currency picker offering only what the server accepts, and a location's position typed as one
// "latitude, longitude" field.

before(prepareTestDatabase);
after(closeTestDatabase);

const unique = () => `${process.pid}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return data;
};

const lamp = (rows: Record<string, string>) =>
  form({
    title: "Brass Desk Lamp",
    handle: "",
    description: "",
    categories: "",
    tags: "",
    variantCount: "1",
    "variants.0.title": "Default",
    "variants.0.price": "49.99",
    "variants.0.inventory": "3",
    ...rows,
  });

/** What the product form's action answers for a refusal: the message under the form field's name. */
const refusalOf = async (data: FormData, slug: string, accountArg: Parameters<typeof runStoreAdminOp>[0]) => {
  const { raw, values, rows } = productFromForm(data);
  try {
    await runStoreAdminOp(accountArg, slug, "createProduct", raw);
  } catch (thrown) {
    const state = errorState(thrown, values);
    return Object.fromEntries(Object.entries(state.errors).map(([k, v]) => [formField(k, rows), v]));
  }
  assert.fail("the product was accepted");
};

describe("admin forms", async () => {
  const owner = await createAccount({
    name: "Forms Owner",
    email: `forms-${unique()}@example.com`,
    password: "long enough passphrase",
  });
  const store = await createStore(
    { name: "Forms Shop", slug: `forms-${unique()}`, currency: "USD", country: "US", shipping: "later" },
    owner.id,
  );

  test("image and attribute rows become the product's media and attributes, blank rows skipped", async () => {
    const data = lamp({
      imagesCount: "3",
      "images.0.url": "https://cdn.example.com/lamp.jpg",
      "images.0.alt": "The lamp",
      "images.1.url": "",
      "images.1.alt": "",
      "images.2.url": " https://cdn.example.com/lit.jpg ",
      "images.2.alt": "",
      attributesCount: "2",
      "attributes.0.name": "material",
      "attributes.0.value": "brass = solid",
      "attributes.1.name": "bulb",
      "attributes.1.value": "E27",
    });
    const { raw } = productFromForm(data);
    const created = await runStoreAdminOp(owner, store.slug, "createProduct", raw);
    const product = await (await getDb()).product.findUniqueOrThrow({ where: { id: created.id } });
    assert.deepEqual(product.media, [
      { type: "image", url: "https://cdn.example.com/lamp.jpg", alt_text: "The lamp" },
      { type: "image", url: "https://cdn.example.com/lit.jpg" },
    ]);
    // an attribute's value is taken whole: an "=" in it is no separator any more
    assert.deepEqual(product.attributes, [
      { name: "material", value: "brass = solid" },
      { name: "bulb", value: "E27" },
    ]);
  });

  test("a refused row is named by its row in the form, and nothing is written", async () => {
    const before = (await listProducts(store, {})).total;
    // a blank first row is skipped, so the bad URL is the product's image 0 but the form's row 1
    const badUrl = await refusalOf(
      lamp({
        imagesCount: "2",
        "images.0.url": "",
        "images.1.url": "ftp://cdn.example.com/lamp.jpg",
      }),
      store.slug,
      owner,
    );
    assert.deepEqual(Object.keys(badUrl), ["images.1.url"]);
    assert.match(badUrl["images.1.url"]!, /http\(s\) URL/);

    const noValue = await refusalOf(
      lamp({ attributesCount: "1", "attributes.0.name": "material", "attributes.0.value": " " }),
      store.slug,
      owner,
    );
    assert.deepEqual(noValue, { "attributes.0.value": "Give the attribute a value" });

    const tooLong = await refusalOf(
      lamp({
        imagesCount: "1",
        "images.0.url": "https://cdn.example.com/a.jpg",
        "images.0.alt": "x".repeat(301),
      }),
      store.slug,
      owner,
    );
    assert.deepEqual(tooLong, { "images.0.alt": "Use at most 300 characters" });

    // a count beyond the rows sent reads empty rows, which are skipped; a count that is not a number reads none
    const { raw } = productFromForm(lamp({ imagesCount: "many", attributesCount: "100000" }));
    assert.deepEqual([raw.images, raw.attributes], [[], []]);
    assert.equal((await listProducts(store, {})).total, before);
  });

  test("coins come from ticked boxes: none ticked is refused in words, and nothing changes", async () => {
    const payout = `0x${"ab".repeat(32)}`;
    await assert.rejects(
      setCryptoSettingsAs(owner, store.slug, { enabled: true, accepted_coins: [], payout_address: payout }),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === "invalid_request" &&
        error.path === "$.accepted_coins" &&
        error.message === "Choose at least one coin",
    );
    const unchanged = await (await getDb()).store.findUniqueOrThrow({ where: { id: store.id } });
    assert.equal(unchanged.cryptoEnabled, false);
    assert.deepEqual(unchanged.acceptedCoins, []);
    // the boxes' order is the preference
    const saved = await setCryptoSettingsAs(owner, store.slug, {
      enabled: true,
      accepted_coins: ["USDC", "SUI"],
      payout_address: payout,
    });
    assert.deepEqual(
      saved.acceptedCoins.map((c) => c.symbol),
      ["USDC", "SUI"],
    );
  });

  test("the currency picker offers only currencies a store may be created in", () => {
    const { common, all } = currencyOptions();
    assert.ok(all.length > 100 && common.some((c) => c.code === "USD"));
    const shape = { name: "X", slug: "xyz", country: "US", shipping: "later" };
    for (const { code } of all) {
      assert.ok(CreateStoreSchema.safeParse({ ...shape, currency: code }).success, code);
    }
    const refused = CreateStoreSchema.safeParse({ ...shape, currency: "ABC" });
    assert.match(refused.error?.issues[0]?.message ?? "", /Choose a currency from the list/);
  });

  test("a location's position is one field; out of range is refused on the latitude or longitude", async () => {
    const address = { name: "Shop", streetAddress: "1 Main St", locality: "Springfield", country: "US" };
    const point = splitPosition("37.7749, -122.4194");
    assert.ok(point);
    const location = await runStoreAdminOp(owner, store.slug, "createLocation", { ...address, ...point });
    assert.deepEqual([location.latitudeE6, location.longitudeE6], [37_774_900, -122_419_400]);
    await assert.rejects(
      runStoreAdminOp(owner, store.slug, "createLocation", { ...address, ...splitPosition("91, 0") }),
      (error: unknown) => error instanceof AppError && error.path === "$.latitude",
    );
    assert.equal(splitPosition("Main Street"), null);
    assert.equal((await runStoreAdminOp(owner, store.slug, "listLocations", {})).length, 1);
  });
});
