// libmosquitto (Debian's libmosquitto-dev): the client library and the MQTT protocol constants (reason codes).
#include <mosquitto.h>
#include <mqtt_protocol.h>
