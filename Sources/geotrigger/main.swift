print("geotrigger")
