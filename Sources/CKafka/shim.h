// librdkafka (Debian's librdkafka-dev): the Kafka client, its admin API and its in-process mock cluster. Only
// Sources/Kafka includes it.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

// rd_kafka_producev is variadic and its RD_KAFKA_V_* macros do not import into Swift: one fixed-argument call.
// The payload and key are copied (RD_KAFKA_MSG_F_COPY); a NULL value is a tombstone; `partition` -1 lets the
// configured partitioner place the message by its key. `headers` (may be NULL) belong to librdkafka once this
// returns no error, and stay the caller's to destroy otherwise.
static inline rd_kafka_resp_err_t gt_kafka_produce(rd_kafka_t *rk, const char *topic, int32_t partition,
                                                   const void *key, size_t key_len,
                                                   const void *value, size_t value_len,
                                                   rd_kafka_headers_t *headers, void *opaque) {
    if (headers == NULL) {
        return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                                 RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE((void *)value, value_len),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
    }
    return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                             RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE((void *)value, value_len),
                             RD_KAFKA_V_HEADERS(headers),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
}
