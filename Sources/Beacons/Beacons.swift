// Beacons: everything between a Bluetooth LE advertisement and a `BeaconSighting`.
//
//   HCIScanner (libbluetooth, live)  ─┐
//                                     ├─> HCIEventParser ─> AdvertisingData ─> BeaconFrameDecoder ─┐
//   BTSnoopReader (capture replay)   ─┘                                                             │
//                                                  BeaconScanPipeline <─ ProximityEstimator <───────┘
//                                                  (RSSIFilter + DistanceModel)
//
// HCIScanner is the only file that touches libbluetooth; everything else is pure Swift on byte slices, bounds-checked,
// and never traps on malformed input.
