print("iapscreen")
