/*
 * Sets of 128-bit keys for the band phase: the exact search's memo of failed
 * sets (bands.c) and the hinge descent's hinges that hold no band
 * (bands_hinge.c). Open addressing, linear probing; (0, 0) is an empty slot, so
 * keys must not be (0, 0).
 */
#include "bands_internal.h"

#include <stdlib.h>

int ap_bs_keys_init(bs_keys *keys, size_t cap)
{
    keys->count = 0;
    keys->cap = cap;
    keys->slot = (bs_key *)ap_pl_zalloc(cap, sizeof(bs_key));
    return keys->slot != NULL;
}

int ap_bs_keys_has(const bs_keys *keys, uint64_t a, uint64_t b)
{
    size_t mask = keys->cap - 1, k = (size_t)a & mask;
    while (keys->slot[k].a != 0 || keys->slot[k].b != 0) {
        if (keys->slot[k].a == a && keys->slot[k].b == b) {
            return 1;
        }
        k = (k + 1) & mask;
    }
    return 0;
}

static void keys_put(bs_key *slot, size_t cap, uint64_t a, uint64_t b)
{
    size_t mask = cap - 1, k = (size_t)a & mask;
    while (slot[k].a != 0 || slot[k].b != 0) {
        if (slot[k].a == a && slot[k].b == b) {
            return;
        }
        k = (k + 1) & mask;
    }
    slot[k].a = a;
    slot[k].b = b;
}

int ap_bs_keys_add(bs_keys *keys, uint64_t a, uint64_t b, size_t *bytes)
{
    if (2 * (keys->count + 1) > keys->cap) {
        size_t cap = keys->cap * 2, need, i;
        bs_key *slot;
        if (!ap_pl_mul(cap, sizeof(bs_key), &need) || *bytes + need > BANDS_MAX_BYTES) {
            return 0;
        }
        slot = (bs_key *)ap_pl_zalloc(cap, sizeof(bs_key));
        if (slot == NULL) {
            return 0;
        }
        for (i = 0; i < keys->cap; ++i) {
            if (keys->slot[i].a != 0 || keys->slot[i].b != 0) {
                keys_put(slot, cap, keys->slot[i].a, keys->slot[i].b);
            }
        }
        free(keys->slot);
        *bytes += need - keys->cap * sizeof(bs_key);
        keys->slot = slot;
        keys->cap = cap;
    }
    keys_put(keys->slot, keys->cap, a, b);
    ++keys->count;
    return 1;
}
