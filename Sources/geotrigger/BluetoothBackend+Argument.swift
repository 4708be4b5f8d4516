import ArgumentParser
import BlueZDBus

extension BluetoothBackend: ExpressibleByArgument {}
