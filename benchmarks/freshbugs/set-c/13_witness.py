import subprocess,sys
r=subprocess.run([sys.executable,'-m','vtengine','score','--ids','5,,17'],capture_output=True,env={**__import__('os').environ,'VT_CACHE_DIR':'/work/freshbugs/cache'})
print(r.returncode)
