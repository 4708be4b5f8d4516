// librdkafka (Debian's librdkafka-dev): the Kafka client, its admin API and its in-process mock cluster. Only
// Sources/Kafka includes it.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

// rd_kafka_producev is variadic and its RD_KAFKA_V_* macros do not import into Swift: one fixed-argument call.
// The payload and key are copied (RD_KAFKA_MSG_F_COPY); `header_name` NULL sends no header; `partition` -1 lets the
// configured partitioner place the message by its key.
static inline rd_kafka_resp_err_t gt_kafka_produce(rd_kafka_t *rk, const char *topic, int32_t partition,
                                                   const void *key, size_t key_len,
                                                   const void *value, size_t value_len,
                                                   const char *header_name, const void *header_value,
                                                   ssize_t header_len, void *opaque) {
    if (header_name == NULL) {
        return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                                 RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE((void *)value, value_len),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
    }
    return rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
                             RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE((void *)value, value_len),
                             RD_KAFKA_V_HEADER(header_name, header_value, header_len),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
}
