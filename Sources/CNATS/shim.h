// nats.c (Debian's libnats-dev): the NATS client with JetStream and key-value buckets. Only Sources/NATS includes it.
#include <nats/nats.h>
