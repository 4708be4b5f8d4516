// Beacons module.
