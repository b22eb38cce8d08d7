/* test_broadcast_tracker.c — the driver's rule for who sends a broadcast piece
 * (src/broadcast/broadcast_tracker.c), driven with explicit times: the driver sends a piece once
 * while others are told "busy", then peers serve it; a holder is never sent to itself; from_driver
 * forces the driver; a lost executor stops holding and stops blocking; the busy timeout frees a
 * piece whose fetch from the driver never finished; bytes are counted per source; a small piece is
 * always sent by the driver (no busy wait, no peer hop for a 192-byte value). Also the broadcast
 * store (src/broadcast/broadcast_store.c): pieces and checksums, pins across a removal, the decode
 * hook run once and freed with the value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "broadcast/broadcast_store.h"
#include "broadcast/broadcast_tracker.h"

/* Pieces above CS_BROADCAST_SMALL_PIECE_BYTES are spread; spark.broadcast.blockSize is 4m. */
#define PIECE (4u << 20)

static void test_driver_sends_each_piece_once(void **state)
{
    broadcast_tracker *t = cs_broadcast_tracker_new(10000);
    bt_peer peers[CS_BROADCAST_MAX_PEERS];
    int n = -1;
    /* 1 asks first: the driver sends; 2 asks while it is in flight: busy */
    assert_int_equal(cs_broadcast_tracker_decide(t, 7, 0, 2, PIECE, "1", false, 1000, peers, &n),
                     BT_SEND);
    assert_int_equal(cs_broadcast_tracker_decide(t, 7, 0, 2, PIECE, "2", false, 1001, peers, &n),
                     BT_BUSY);
    /* the piece being fetched by 1 asked again by 1 (a retry): the driver sends */
    assert_int_equal(cs_broadcast_tracker_decide(t, 7, 0, 2, PIECE, "1", false, 1002, peers, &n),
                     BT_SEND);
    cs_broadcast_tracker_stored(t, 7, 0, "1", "driver", PIECE);
    /* now 2 and 3 are sent to 1; 1 itself would be sent to the driver */
    assert_int_equal(cs_broadcast_tracker_decide(t, 7, 0, 2, PIECE, "2", false, 1003, peers, &n),
                     BT_PEERS);
    assert_int_equal(n, 1);
    assert_string_equal(peers[0].executor_id, "1");
    cs_broadcast_tracker_stored(t, 7, 0, "2", "1", PIECE);
    assert_int_equal(cs_broadcast_tracker_decide(t, 7, 0, 2, PIECE, "3", false, 1004, peers, &n),
                     BT_PEERS);
    assert_int_equal(n, 2);
    assert_int_equal(cs_broadcast_tracker_decide(t, 7, 0, 2, PIECE, "1", false, 1005, peers, &n),
                     BT_PEERS); /* 2 holds it too */
    assert_string_equal(peers[0].executor_id, "2");
    /* the peers failed 3: the driver sends */
    assert_int_equal(cs_broadcast_tracker_decide(t, 7, 0, 2, PIECE, "3", true, 1006, peers, &n),
                     BT_SEND);
    uint64_t drv = 0, ex = 0;
    cs_broadcast_tracker_served(t, 7, &drv, &ex);
    assert_int_equal(drv, 3 * PIECE);
    assert_int_equal(ex, PIECE);
    cs_broadcast_tracker_free(t);
}

static void test_lost_and_stalled_executors(void **state)
{
    broadcast_tracker *t = cs_broadcast_tracker_new(5000);
    bt_peer peers[CS_BROADCAST_MAX_PEERS];
    int n;
    assert_int_equal(cs_broadcast_tracker_decide(t, 1, 0, 1, PIECE, "a", false, 0, peers, &n),
                     BT_SEND);
    assert_int_equal(cs_broadcast_tracker_decide(t, 1, 0, 1, PIECE, "b", false, 4999, peers, &n),
                     BT_BUSY);
    /* a's fetch stalled past the timeout: b is served by the driver */
    assert_int_equal(cs_broadcast_tracker_decide(t, 1, 0, 1, PIECE, "b", false, 5000, peers, &n),
                     BT_SEND);
    cs_broadcast_tracker_stored(t, 1, 0, "b", "driver", PIECE);
    /* b is lost: c is not sent to it, and its in-flight marks are gone */
    cs_broadcast_tracker_executor_lost(t, "b");
    assert_int_equal(cs_broadcast_tracker_decide(t, 1, 0, 1, PIECE, "c", false, 5001, peers, &n),
                     BT_SEND);
    cs_broadcast_tracker_executor_lost(t, "c");
    assert_int_equal(cs_broadcast_tracker_decide(t, 1, 0, 1, PIECE, "d", false, 5002, peers, &n),
                     BT_SEND);
    /* a removed broadcast is forgotten */
    cs_broadcast_tracker_remove(t, 1);
    uint64_t drv = 1, ex = 1;
    cs_broadcast_tracker_served(t, 1, &drv, &ex);
    assert_int_equal(drv, 0);
    cs_broadcast_tracker_free(t);
}

/* The centroids of a k-means iteration: one piece of 192 bytes. Every executor gets it from the
 * driver at once, even while another fetches it and once others hold it. */
static void test_small_piece_sent_by_driver(void **state)
{
    (void)state;
    broadcast_tracker *t = cs_broadcast_tracker_new(10000);
    bt_peer peers[CS_BROADCAST_MAX_PEERS];
    int n = -1;
    assert_int_equal(cs_broadcast_tracker_decide(t, 3, 0, 1, 192, "1", false, 0, peers, &n),
                     BT_SEND);
    assert_int_equal(cs_broadcast_tracker_decide(t, 3, 0, 1, 192, "2", false, 1, peers, &n),
                     BT_SEND);
    cs_broadcast_tracker_stored(t, 3, 0, "1", "driver", 192);
    cs_broadcast_tracker_stored(t, 3, 0, "2", "driver", 192);
    assert_int_equal(cs_broadcast_tracker_decide(t, 3, 0, 1, 192, "3", false, 2, peers, &n),
                     BT_SEND);
    assert_int_equal(n, 0);
    /* the largest small piece too; one byte more is spread */
    assert_int_equal(cs_broadcast_tracker_decide(t, 4, 0, 1, CS_BROADCAST_SMALL_PIECE_BYTES, "1",
                                                 false, 3, peers, &n),
                     BT_SEND);
    assert_int_equal(cs_broadcast_tracker_decide(t, 4, 0, 1, CS_BROADCAST_SMALL_PIECE_BYTES, "2",
                                                 false, 4, peers, &n),
                     BT_SEND);
    assert_int_equal(cs_broadcast_tracker_decide(t, 5, 0, 1, CS_BROADCAST_SMALL_PIECE_BYTES + 1,
                                                 "1", false, 5, peers, &n),
                     BT_SEND);
    assert_int_equal(cs_broadcast_tracker_decide(t, 5, 0, 1, CS_BROADCAST_SMALL_PIECE_BYTES + 1,
                                                 "2", false, 6, peers, &n),
                     BT_BUSY);
    uint64_t drv = 0, ex = 1;
    cs_broadcast_tracker_served(t, 3, &drv, &ex);
    assert_int_equal(drv, 3 * 192);
    assert_int_equal(ex, 0);
    cs_broadcast_tracker_free(t);
}

static int decodes, frees;

static void *decode_len(const void *data, size_t len, char **error)
{
    (void)data;
    (void)error;
    decodes++;
    size_t *p = malloc(sizeof *p);
    *p = len;
    return p;
}

static void free_len(void *p)
{
    frees++;
    free(p);
}

static void test_store_pieces_pins_and_decode(void **state)
{
    broadcast_store *s = cs_broadcast_store_new();
    uint8_t data[1000];
    for (int i = 0; i < 1000; i++)
        data[i] = (uint8_t)(i * 7);
    assert_int_equal(cs_broadcast_store_put(s, 3, data, sizeof data, 300, NULL), 0);
    assert_true(cs_broadcast_store_put(s, 3, data, 1, 300, NULL) < 0);
    broadcast_entry *e = NULL, *p = NULL;
    assert_int_equal(cs_broadcast_store_acquire(s, 3, &e, NULL), 0);
    broadcast_desc d;
    cs_broadcast_entry_desc(e, &d);
    assert_int_equal(d.num_pieces, 4);
    assert_int_equal(d.size, 1000);
    const uint8_t *piece;
    size_t len;
    assert_int_equal(cs_broadcast_store_piece(s, 3, 3, &p, &piece, &len, NULL), 0);
    assert_int_equal(len, 100); /* the last piece is short */
    assert_memory_equal(piece, data + 900, 100);
    assert_int_equal(cs_broadcast_piece_checksum(piece, len), d.checksums[3]);
    cs_broadcast_store_release(s, p);
    assert_true(cs_broadcast_store_piece(s, 3, 4, &p, &piece, &len, NULL) < 0);
    void *dec = NULL, *dec2 = NULL;
    assert_int_equal(cs_broadcast_entry_decoded(s, e, decode_len, free_len, &dec, NULL), 0);
    assert_int_equal(cs_broadcast_entry_decoded(s, e, decode_len, free_len, &dec2, NULL), 0);
    assert_ptr_equal(dec, dec2);
    assert_int_equal(decodes, 1);
    /* removed while pinned: hidden at once, freed (decoded form too) at the release */
    assert_true(cs_broadcast_store_remove(s, 3));
    assert_false(cs_broadcast_store_remove(s, 3));
    assert_true(cs_broadcast_store_acquire(s, 3, &p, NULL) < 0);
    size_t vlen;
    assert_memory_equal(cs_broadcast_entry_data(e, &vlen), data, 1000);
    assert_int_equal(frees, 0);
    cs_broadcast_store_release(s, e);
    assert_int_equal(frees, 1);
    /* an empty value has no pieces */
    assert_int_equal(cs_broadcast_store_put(s, 4, NULL, 0, 300, NULL), 0);
    assert_int_equal(cs_broadcast_store_acquire(s, 4, &e, NULL), 0);
    cs_broadcast_entry_desc(e, &d);
    assert_int_equal(d.num_pieces, 0);
    cs_broadcast_store_release(s, e);
    cs_broadcast_store_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_sends_each_piece_once),
        cmocka_unit_test(test_lost_and_stalled_executors),
        cmocka_unit_test(test_small_piece_sent_by_driver),
        cmocka_unit_test(test_store_pieces_pins_and_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
